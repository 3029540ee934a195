// One decision attempt, one audit row — even when its event runs twice. An inbound event (a tap, an
// `/approve` or `/deny`) is run again when a process stops before its inbox row is done: the start that
// takes the row up must not record the same person's same attempt a second time. A new event (a second
// tap, the command typed again) is a new attempt, and is audited as one: a loser told it already decided. An event
// whose decision landed, run again, is not a loser: its person is told nothing (they tapped once).
import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { auditOf } from '../../src/core/approvals/gate-store.ts';
import { decisionAudit, inbox } from '../../src/core/db/index.ts';
import type { Actor, InboundEvent } from '../../src/core/surface/index.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { startAssembled, type Assembled } from '../helpers/assembled.ts';
import { eventually } from '../helpers/eventually.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';
import { button, launch, launchTool, only, TG } from './helpers.ts';

const CHAT = 'telegram:1' as const;

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});
let k: Assembled | undefined;
afterEach(async () => {
  await k?.close();
  k = undefined;
});

async function rig() {
  const launches = launchTool();
  k = await startAssembled(
    {
      model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 1 },
      access: {
        operators: [
          { name: 'maya', telegram: '42' },
          { name: 'ana', telegram: '43' },
        ],
        users: ['telegram:77'],
      },
    },
    { tools: [launches.tool] },
  );
  const surface = new RecordingSurface('telegram');
  k.kazma.core.attachSurface(surface);
  return { k, surface, launches };
}

/** Hands the pipeline one event and waits until its work is done; returns the event. */
async function deliver(r: { k: Assembled }, event: InboundEvent): Promise<InboundEvent> {
  await r.k.kazma.core.pipeline.handle(event);
  await r.k.settled();
  return event;
}

const message = (text: string, actor: Actor = TG.maya): InboundEvent => ({
  kind: 'message',
  eventId: randomUUID(),
  platform: 'telegram',
  chat: CHAT,
  actor,
  text,
});

const tap = (actionId: string, actor: Actor): InboundEvent => ({
  kind: 'action',
  eventId: randomUUID(),
  platform: 'telegram',
  chat: CHAT,
  actor,
  actionId,
});

/** Takes an event up again as a start takes up a row a killed process left running (its work runs again). */
async function takeUpAgain(r: { k: Assembled }, event: InboundEvent): Promise<void> {
  const { db } = r.k.database;
  const where = eq(inbox.eventId, event.eventId);
  await db
    .update(inbox)
    .set({ state: 'running', owner: 'a-killed-process', updatedAt: new Date(Date.now() - 3_600_000) })
    .where(where);
  await r.k.kazma.core.pipeline.recover({ staleBefore: new Date(Date.now() - 60_000) });
  await eventually(
    async () => (await db.select().from(inbox).where(where))[0]?.state,
    (state) => state === 'done' || state === 'failed',
    `event ${event.eventId} run again`,
  );
  await r.k.settled();
}

/** A gate's audit as [outcome, who, decision] rows, oldest first. */
async function gateAudit(r: { k: Assembled }, gateId: string) {
  return (await auditOf(r.k.database.db, gateId)).map((row) => [row.outcome, row.actor?.operator, row.decision]);
}

async function askLaunch(r: Awaited<ReturnType<typeof rig>>) {
  llm.script(launch({ target: 'venus' }), { text: 'done' });
  await deliver(r, message('launch to venus'));
  const gate = only(await r.k.kazma.core.approvals.list());
  return { gate, card: r.surface.cards.at(-1)!.card };
}

describe('a decision attempt run again for the same event records no second audit row', () => {
  it('/approve that won, taken up again: still one row (won), the tool ran once', async () => {
    const r = await rig();
    const { gate } = await askLaunch(r);
    const approve = await deliver(r, message(`/approve ${gate.gateId}`));
    expect(await gateAudit(r, gate.gateId)).toEqual([['won', 'maya', 'once']]);

    const told = [...r.surface.privately, ...r.surface.sent];
    await takeUpAgain(r, approve);
    expect(await gateAudit(r, gate.gateId)).toEqual([['won', 'maya', 'once']]);
    expect(r.launches.runs).toHaveLength(1);
    expect([...r.surface.privately, ...r.surface.sent]).toEqual(told);
  });

  it('/deny that lost to a tap, taken up again: still one lost row for it', async () => {
    const r = await rig();
    const { gate, card } = await askLaunch(r);
    await deliver(r, tap(button(card, 'once'), TG.ana));
    const deny = await deliver(r, message(`/deny ${gate.gateId} too late`));
    const once = [
      ['won', 'ana', 'once'],
      ['lost', 'maya', 'deny'],
    ];
    expect(await gateAudit(r, gate.gateId)).toEqual(once);

    await takeUpAgain(r, deny);
    expect(await gateAudit(r, gate.gateId)).toEqual(once);
  });

  it('a tap taken up again adds nothing; a second tap (a new event) is a new attempt, audited as lost', async () => {
    const r = await rig();
    const { gate, card } = await askLaunch(r);
    const first = await deliver(r, tap(button(card, 'once'), TG.maya));
    const told = r.surface.privately.length;
    await takeUpAgain(r, first);
    expect(await gateAudit(r, gate.gateId)).toEqual([['won', 'maya', 'once']]);
    expect(r.launches.runs).toHaveLength(1);
    expect(r.surface.privately.slice(told)).toEqual([]);

    await deliver(r, tap(button(card, 'once'), TG.maya));
    expect(await gateAudit(r, gate.gateId)).toEqual([
      ['won', 'maya', 'once'],
      ['lost', 'maya', 'once'],
    ]);
    expect(r.surface.privately.at(-1)?.text).toMatch(/^You already decided this: Approved once by maya/);
  });

  it('a refused /approve and one for an unknown gate, taken up again: one row each', async () => {
    const r = await rig();
    const { gate } = await askLaunch(r);
    const refused = await deliver(r, message(`/approve ${gate.gateId}`, { platform: 'telegram', id: '77' }));
    const unknown = await deliver(r, message('/approve gt_nowhere'));
    await takeUpAgain(r, refused);
    await takeUpAgain(r, unknown);
    expect((await auditOf(r.k.database.db, 'gt_nowhere')).map((row) => row.outcome)).toEqual(['unknown_gate']);
    expect((await auditOf(r.k.database.db, gate.gateId)).map((row) => row.outcome)).toEqual(['refused']);
  });

  it('a tap on a question card taken up again adds nothing', async () => {
    const r = await rig();
    const acted: string[] = [];
    r.k.kazma.core.questions.onDecided('rerun', async (q) => void acted.push(q.decision!));
    const question = await r.k.kazma.core.questions.ask({
      kind: 'rerun',
      title: 'Task stalled',
      options: [
        { id: 'retry', label: 'Retry', style: 'primary' },
        { id: 'dismiss', label: 'Dismiss', style: 'secondary' },
      ],
      chat: CHAT,
      destinations: [CHAT],
    });
    await r.k.settled();
    const dismiss = r.surface.cards.at(-1)!.card.buttons.find((b) => b.id.endsWith(':dismiss'))!.id;
    const first = await deliver(r, tap(dismiss, TG.ana));
    const rows = () =>
      r.k.database.db
        .select()
        .from(decisionAudit)
        .where(and(eq(decisionAudit.kind, 'question'), eq(decisionAudit.subjectId, question.id)))
        .then((all) => all.map((row) => [row.outcome, row.actor?.operator, row.decision]));
    expect(await rows()).toEqual([['won', 'ana', 'dismiss']]);

    const told = r.surface.privately.length;
    await takeUpAgain(r, first);
    expect(await rows()).toEqual([['won', 'ana', 'dismiss']]);
    expect(acted).toEqual(['dismiss']);
    expect(r.surface.privately.slice(told)).toEqual([]);
  });
});

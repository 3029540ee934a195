// The run supervisor watches background work by its progress: a task whose model call hangs opens
// exactly one incident, with one card per destination (its chat and runs.alert_channels), however
// many sweeps and supervisors look at it; when it moves again the cards say "Recovered". Incident
// cards are decided first-wins on every surface, like approvals.
import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Actor, ChatRef } from '../../src/core/surface/index.ts';
import { runIncidents } from '../../src/core/db/schema/incidents.ts';
import { decisionAudit } from '../../src/core/db/schema/decision-audit.ts';
import { decisionQuestions } from '../../src/core/db/schema/questions.ts';
import { outbox } from '../../src/core/db/schema/outbox.ts';
import type { TaskState } from '../../src/core/db/schema/tasks.ts';
import { defaultStep } from '../fakes/llm-wire.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { kazmasOnOneDatabase, type Assembled } from '../helpers/assembled.ts';
import { eventually } from '../helpers/eventually.ts';
import { FakeClock } from '../helpers/fake-clock.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';

const CHAT: ChatRef = 'telegram:1';
const OPS: ChatRef = 'slack:C1';
const MAYA: Actor = { platform: 'telegram', id: '42', displayName: 'Maya' };
const ANA: Actor = { platform: 'slack', id: 'U1', displayName: 'Ana' };
const MINUTE = 60_000;

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});
afterEach(() => {
  llm.requests.length = 0;
  llm.setDefault(defaultStep);
});

const kazmas = kazmasOnOneDatabase('postgres');
const CONFIG = {
  model: { name: 'fake-model', max_retries: 0, timeout: '5m' },
  access: {
    operators: [
      { name: 'maya', telegram: '42' },
      { name: 'ana', slack: 'U1' },
    ],
  },
  runs: { alert_channels: [OPS], stall_after: { task: '2m' } },
};

/** One Telegram and one Slack: processes on one database talk to the same platforms, not one each. */
const platforms = () => ({ telegram: new RecordingSurface('telegram'), slack: new RecordingSurface('slack') });

async function node(clock: FakeClock, { telegram, slack } = platforms()) {
  const k = await kazmas.start({ ...CONFIG, model: { ...CONFIG.model, base_url: llm.baseURL } }, { clock });
  k.kazma.core.attachSurface(telegram);
  k.kazma.core.attachSurface(slack);
  const say = (text: string, actor = MAYA, chat = CHAT) =>
    k.kazma.core.pipeline.handle({
      kind: 'message',
      eventId: randomUUID(),
      platform: actor.platform,
      chat,
      actor,
      text,
    });
  const tap = (actionId: string, actor: Actor, chat: ChatRef) =>
    k.kazma.core.pipeline.handle({
      kind: 'action',
      eventId: randomUUID(),
      platform: actor.platform,
      chat,
      actor,
      actionId,
    });
  const incidentCards = () => [...telegram.cards, ...slack.cards].filter((c) => c.card.title.startsWith('⚠️'));
  return { k, telegram, slack, say, tap, incidentCards };
}

async function startTask(n: Awaited<ReturnType<typeof node>>, goal: string): Promise<string> {
  await n.say(`/task ${goal}`);
  const card = await eventually(
    () => n.telegram.cards,
    (cards) => cards.find((c) => c.card.title.startsWith('Task ') && c.card.fields.some((f) => f.value === goal)),
    'the status card',
  );
  return card.card.title.slice('Task '.length);
}

const reaches = (k: Assembled, id: string, state: TaskState, timeoutMs = 15_000) =>
  eventually(
    () => k.kazma.core.tasks.get(id),
    (t) => t?.state === state && t,
    `task ${id} ${state}`,
    { timeoutMs },
  );

describe('run supervisor', () => {
  it('a task whose model call hangs opens one incident and one card per destination, across sweeps and two supervisors; it recovers when the task moves', async () => {
    const clock = new FakeClock(new Date().toISOString());
    const shared = platforms();
    const a = await node(clock, shared);
    const b = await node(clock, shared);
    // Long enough to outlast the sweeps below on a loaded machine; the hang's end is the task's progress.
    llm.hangNext(1, 25_000);
    llm.script({ text: 'The logs are quiet.' });
    const id = await startTask(a, 'summarise the logs');
    await eventually(
      () => llm.attempts,
      (attempts) => attempts.some((x) => x.outcome === 'hung'),
      'the hung model call',
    );

    // Within the threshold: nothing.
    clock.advance(1 * MINUTE);
    await a.k.kazma.core.supervisor.sweep();
    expect(await a.k.database.db.select().from(runIncidents)).toEqual([]);

    // Past it: two supervisors (two processes on one database), several sweeps each, at once.
    clock.advance(2 * MINUTE);
    const sweeps = () => [a.k.kazma.core.supervisor.sweep(), b.k.kazma.core.supervisor.sweep()];
    await Promise.all([...sweeps(), ...sweeps(), ...sweeps()]);
    await Promise.all([a.k.settled(), b.k.settled()]);
    await Promise.all(sweeps());
    await Promise.all([a.k.settled(), b.k.settled()]);

    const incidents = await a.k.database.db.select().from(runIncidents);
    expect(incidents).toHaveLength(1);
    expect(incidents[0]).toMatchObject({ workKind: 'task', workId: id, problem: 'stalled', state: 'open', chat: CHAT });
    expect(await a.k.database.db.select().from(decisionQuestions)).toHaveLength(1);
    const cardRows = await a.k.database.db.select().from(outbox).where(eq(outbox.ownerId, incidents[0]!.questionId!));
    expect(cardRows.map((r) => r.destination).sort()).toEqual([OPS, CHAT].sort());
    const cards = a.incidentCards();
    expect(cards.map((c) => c.ref.chat).sort()).toEqual([OPS, CHAT].sort());
    expect(cards[0]!.card.title).toBe(`⚠️ Background task ${id} is making no progress`);
    expect(cards[0]!.card.buttons.map((x) => x.label)).toEqual(['Retry', 'Cancel', 'Dismiss']);

    // /status and /incidents tell it on the chat.
    await a.say('/incidents');
    await a.say('/status');
    await a.k.settled();
    expect(a.telegram.texts().join('\n')).toContain(`task ${id} stalled`);
    expect(a.telegram.texts().join('\n')).toContain('incidents: 1 open (1 from this chat)');

    // The hang ends, the task finishes: the incident closes itself and every card says so.
    await reaches(a.k, id, 'done', 60_000);
    await Promise.all(sweeps());
    await Promise.all([a.k.settled(), b.k.settled()]);
    const [closed] = await a.k.database.db.select().from(runIncidents);
    expect(closed!.state).toBe('recovered');
    for (const card of cards) {
      expect(card.edits.at(-1)?.buttons).toEqual([]);
      expect(card.edits.at(-1)?.footer).toMatch(/^Recovered/);
    }
  }, 120_000);

  it('Retry on Slack and Cancel on Telegram tapped together: one wins, the other is told, it is acted on once, both cards edited', async () => {
    const clock = new FakeClock(new Date().toISOString());
    const a = await node(clock);
    llm.failNext(1, { status: 500 });
    const id = await startTask(a, 'count the open tickets');
    await reaches(a.k, id, 'failed');
    await a.k.kazma.core.supervisor.sweep();
    await a.k.settled();
    const onTelegram = a.telegram.cards.find((c) => c.card.title.startsWith('⚠️'))!;
    const onSlack = a.slack.cards.find((c) => c.card.title.startsWith('⚠️'))!;
    expect(onTelegram.card.title).toBe(`⚠️ Background task ${id} failed`);
    const button = (card: typeof onTelegram, label: string) => card.card.buttons.find((x) => x.label === label)!.id;

    llm.script({ text: 'There are 7 open tickets.' });
    const before = llm.requests.length;
    await Promise.all([a.tap(button(onSlack, 'Retry'), ANA, OPS), a.tap(button(onTelegram, 'Cancel'), MAYA, CHAT)]);
    await a.k.settled();

    const [incident] = await a.k.database.db.select().from(runIncidents);
    expect(incident!.state).toBe('decided');
    const won = await a.k.database.db
      .select()
      .from(decisionAudit)
      .where(and(eq(decisionAudit.kind, 'question'), eq(decisionAudit.outcome, 'won')));
    expect(won).toHaveLength(1);
    expect(won[0]!.decision).toBe(incident!.decision);
    // The loser is told who decided, privately, on their own platform.
    const told = [...a.telegram.privately, ...a.slack.privately];
    expect(told).toHaveLength(1);
    expect(told[0]!.text).toMatch(/^Already decided: (Retry|Cancel) by (ana|maya)/);
    for (const card of [onTelegram, onSlack]) expect(card.edits.at(-1)?.buttons).toEqual([]);

    if (incident!.decision === 'retry') {
      const task = await reaches(a.k, id, 'done');
      expect(task.result).toBe('There are 7 open tickets.');
      expect(llm.requests.length - before).toBe(1);
    } else {
      // Cancel lost nothing and ran nothing: a failed task has already ended.
      expect((await a.k.kazma.core.tasks.get(id))!.state).toBe('failed');
      expect(llm.requests.length - before).toBe(0);
    }
  }, 60_000);
});

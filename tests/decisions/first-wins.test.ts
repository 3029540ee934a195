// The one "first decision wins" mechanism, run for two kinds of question on three platforms at once:
// approval gates (raised by the agent) and an incident-shaped question (Retry / Cancel / Dismiss).
// For each: a card on Telegram, Slack and Discord; three operators tap at the same moment, one per
// platform; exactly one wins, the other two are told privately who decided where, every card is
// edited to the outcome once, the owner acts once, and someone who may not decide is refused.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { auditOf } from '../../src/core/approvals/gate-store.ts';
import type { Actor, Card, ChatRef, InboundEvent, MessageRef } from '../../src/core/surface/index.ts';
import { decisionAudit } from '../../src/core/db/schema/decision-audit.ts';
import type { Question } from '../../src/core/decisions/questions.ts';
import { and, eq } from 'drizzle-orm';
import { launch, launchTool } from '../approvals/helpers.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { startAssembled, type Assembled } from '../helpers/assembled.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';

const CHATS = { telegram: 'telegram:1', slack: 'slack:C1', discord: 'discord:D1' } as const satisfies Record<
  string,
  ChatRef
>;
const TAPPERS: Array<{ actor: Actor; chat: ChatRef; name: string; platform: string }> = [
  { actor: { platform: 'telegram', id: '42' }, chat: CHATS.telegram, name: 'maya', platform: 'Telegram' },
  { actor: { platform: 'slack', id: 'U1' }, chat: CHATS.slack, name: 'ana', platform: 'Slack' },
  { actor: { platform: 'discord', id: '3' }, chat: CHATS.discord, name: 'ben', platform: 'Discord' },
];
const USER: Actor = { platform: 'telegram', id: '77' }; // may talk to Kazma, may not decide

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});
let running: Assembled | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

interface Rig {
  k: Assembled;
  surfaces: Record<keyof typeof CHATS, RecordingSurface>;
  launches: ReturnType<typeof launchTool>;
  incidents: Array<{ question: Question; by: string }>;
}

async function rig(): Promise<Rig> {
  const launches = launchTool();
  const k = (running = await startAssembled(
    {
      model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 1 },
      access: {
        operators: [
          { name: 'maya', telegram: '42' },
          { name: 'ana', slack: 'U1' },
          { name: 'ben', discord: '3' },
        ],
        users: ['telegram:77'],
      },
      approvals: { channels: [CHATS.slack, CHATS.discord] },
    },
    { tools: [launches.tool] },
  ));
  const surfaces = {
    telegram: new RecordingSurface('telegram'),
    slack: new RecordingSurface('slack'),
    discord: new RecordingSurface('discord'),
  };
  for (const surface of Object.values(surfaces)) k.kazma.core.attachSurface(surface);
  const incidents: Rig['incidents'] = [];
  k.kazma.core.questions.onDecided(
    'incident',
    async (question, actor) => void incidents.push({ question, by: actor.id }),
  );
  return { k, surfaces, launches, incidents };
}

/** A kind of question as the suite drives it. */
interface KindCase {
  name: string;
  /** Puts one question up; its cards go to all three chats. Returns its id. */
  raise(r: Rig): Promise<string>;
  /** The answer each of the three tappers gives (different answers: the winner's shows on every card). */
  answers: [string, string, string];
  /** How a card's footer names an answer ("Approved once", "Retry"). */
  label: Record<string, string>;
  /** Every attempt's outcome in the kind's audit trail. */
  audit(r: Rig, id: string): Promise<string[]>;
  /** What the owner did with the winning answer: exactly one entry, naming the answer. */
  acted(r: Rig): Promise<string[]>;
}

const KINDS: KindCase[] = [
  {
    name: 'approval gate',
    async raise({ k }) {
      llm.script(launch({ target: 'venus' }), { text: 'done' });
      await k.kazma.core.pipeline.handle({
        kind: 'message',
        eventId: randomUUID(),
        platform: 'telegram',
        chat: CHATS.telegram,
        actor: TAPPERS[0]!.actor,
        text: 'launch',
      });
      const [gate] = await k.kazma.core.approvals.list();
      return gate!.gateId;
    },
    answers: ['once', 'deny', 'always'],
    label: { once: 'Approved once', deny: 'Denied', always: 'Approved always' },
    audit: async ({ k }, id) => (await auditOf(k.database.db, id)).map((row) => row.outcome),
    acted: async ({ k, launches }) => {
      const [gate] = await k.kazma.core.approvals.list({ states: ['settled'] });
      return gate ? [gate.decision!] : launches.runs.map(() => 'ran without a settled gate');
    },
  },
  {
    name: 'incident question',
    async raise({ k }) {
      const question = await k.kazma.core.questions.ask({
        kind: 'incident',
        title: 'Task "nightly report" stalled',
        fields: [{ label: 'Since', value: '10 min' }],
        options: [
          { id: 'retry', label: 'Retry', style: 'primary' },
          { id: 'cancel', label: 'Cancel', style: 'danger' },
          { id: 'dismiss', label: 'Dismiss', style: 'secondary' },
        ],
        chat: CHATS.telegram,
        destinations: Object.values(CHATS),
        subject: { task: 't1' },
      });
      return question.id;
    },
    answers: ['retry', 'cancel', 'dismiss'],
    label: { retry: 'Retry', cancel: 'Cancel', dismiss: 'Dismiss' },
    audit: async ({ k }, id) =>
      (
        await k.database.db
          .select()
          .from(decisionAudit)
          .where(and(eq(decisionAudit.kind, 'question'), eq(decisionAudit.subjectId, id)))
          .orderBy(decisionAudit.id)
      ).map((row) => row.outcome),
    acted: async ({ incidents }) => incidents.map((i) => i.question.decision!),
  },
];

function tap(card: Card, answer: string, actor: Actor, chat: ChatRef, message?: MessageRef): InboundEvent {
  const button = card.buttons.find((b) => b.id.endsWith(`:${answer}`));
  if (!button) throw new Error(`the card "${card.title}" has no ${answer} button`);
  return {
    kind: 'action',
    eventId: randomUUID(),
    platform: actor.platform,
    chat,
    actor,
    actionId: button.id,
    ...(message && { message }),
  };
}

describe.each(KINDS)('first decision wins: $name', (kind) => {
  it('three operators on three platforms tap at once: one wins, two are told who, every card edited once, the owner acts once', async () => {
    const r = await rig();
    const id = await kind.raise(r);
    await r.k.settled();
    const cards = Object.values(r.surfaces).map((s) => s.cards);
    expect(cards.map((c) => c.length)).toEqual([1, 1, 1]);
    const card = r.surfaces.telegram.cards[0]!.card;

    await Promise.all(
      TAPPERS.map((t, i) => r.k.kazma.core.pipeline.handle(tap(card, kind.answers[i]!, t.actor, t.chat))),
    );
    await r.k.settled();

    expect((await kind.audit(r, id)).sort()).toEqual(['lost', 'lost', 'won']);
    const acted = await kind.acted(r);
    expect(acted).toHaveLength(1);
    const winner = TAPPERS[kind.answers.indexOf(acted[0]!)]!;
    const line = new RegExp(`^${kind.label[acted[0]!]} by ${winner.name} on ${winner.platform} at \\d\\d:\\d\\d UTC`);

    // The two losers, each privately in the chat they tapped in, with the winner's answer, name and platform.
    const told = Object.values(r.surfaces).flatMap((s) => s.privately);
    expect(told.map((t) => t.actor.id).sort()).toEqual(
      TAPPERS.filter((t) => t !== winner)
        .map((t) => t.actor.id)
        .sort(),
    );
    for (const t of told) {
      expect(t.chat).toBe(TAPPERS.find((x) => x.actor.id === t.actor.id)!.chat);
      expect(t.text.replace(/^Already decided: /, '')).toMatch(line);
    }
    // Every card, on every platform, edited once: no buttons, the outcome in its footer.
    for (const surface of Object.values(r.surfaces)) {
      expect(surface.cards[0]!.edits).toHaveLength(1);
      expect(surface.cards[0]!.edits[0]!.buttons).toEqual([]);
      expect(surface.cards[0]!.edits[0]!.footer).toMatch(line);
    }

    // A late tap is told the same, changes nothing, and is audited as lost.
    await r.k.kazma.core.pipeline.handle(tap(card, kind.answers[0]!, TAPPERS[2]!.actor, CHATS.discord));
    await r.k.settled();
    expect(r.surfaces.discord.privately.at(-1)!.text).toMatch(/Already decided|You already decided/);
    expect(await kind.acted(r)).toEqual(acted);
    expect((await kind.audit(r, id)).filter((o) => o === 'lost')).toHaveLength(3);
  });

  it('a tap on a copy no row recorded (sent twice, the first answer lost) shows it the decision', async () => {
    const r = await rig();
    await kind.raise(r);
    await r.k.settled();
    const sent = r.surfaces.slack.cards[0]!;
    const copy = { ref: { chat: CHATS.slack, id: 'copy-of-the-card' }, card: sent.card, edits: [] as Card[] };
    r.surfaces.slack.cards.push(copy);

    await r.k.kazma.core.pipeline.handle(tap(sent.card, kind.answers[0]!, TAPPERS[0]!.actor, CHATS.telegram));
    await r.k.settled();
    expect(copy.edits).toEqual([]);
    await r.k.kazma.core.pipeline.handle(tap(copy.card, kind.answers[1]!, TAPPERS[1]!.actor, CHATS.slack, copy.ref));
    await r.k.settled();
    expect(copy.edits).toHaveLength(1);
    expect(copy.edits[0]!.buttons).toEqual([]);
    expect(copy.edits[0]!.footer).toBe(sent.edits.at(-1)!.footer);
    expect(await kind.acted(r)).toEqual([kind.answers[0]]);
  });

  it('someone who may not decide is refused privately and audited; the question stays open for an operator', async () => {
    const r = await rig();
    const id = await kind.raise(r);
    await r.k.settled();
    const card = r.surfaces.telegram.cards[0]!.card;

    await r.k.kazma.core.pipeline.handle(tap(card, kind.answers[0]!, USER, CHATS.telegram));
    await r.k.settled();
    expect(r.surfaces.telegram.privately).toEqual([
      {
        chat: CHATS.telegram,
        actor: expect.objectContaining({ id: USER.id }),
        text: expect.stringMatching(/^You cannot decide this: only operators/),
      },
    ]);
    expect(await kind.audit(r, id)).toEqual(['refused']);
    expect(await kind.acted(r)).toEqual([]);
    expect(r.surfaces.slack.cards[0]!.edits).toEqual([]);

    await r.k.kazma.core.pipeline.handle(tap(card, kind.answers[1]!, TAPPERS[1]!.actor, CHATS.slack));
    await r.k.settled();
    expect(await kind.acted(r)).toEqual([kind.answers[1]]);
  });
});

describe('questions', () => {
  it('a question withdrawn (the incident recovered) edits every card with why, and a later tap is told it is closed', async () => {
    const r = await rig();
    const id = await KINDS[1]!.raise(r);
    await r.k.settled();
    expect(await r.k.kazma.core.questions.close(id, 'Recovered: the task made progress again')).toBe(true);
    expect(await r.k.kazma.core.questions.close(id, 'again')).toBe(false);
    await r.k.settled();
    for (const surface of Object.values(r.surfaces))
      expect(surface.cards[0]!.edits.map((e) => [e.buttons.length, e.footer])).toEqual([
        [0, 'Recovered: the task made progress again'],
      ]);

    await r.k.kazma.core.pipeline.handle(tap(r.surfaces.slack.cards[0]!.card, 'retry', TAPPERS[1]!.actor, CHATS.slack));
    await r.k.settled();
    expect(r.surfaces.slack.privately.map((p) => p.text)).toEqual([
      'This question is closed: Recovered: the task made progress again.',
    ]);
    expect(r.incidents).toEqual([]);
  });

  it('an answer the question does not offer is refused and changes nothing', async () => {
    const r = await rig();
    const id = await KINDS[1]!.raise(r);
    await r.k.settled();
    const forged = {
      kind: 'action' as const,
      eventId: randomUUID(),
      platform: 'telegram',
      chat: CHATS.telegram,
      actor: TAPPERS[0]!.actor,
      actionId: `q:${id}:launch`,
    };
    await r.k.kazma.core.pipeline.handle(forged);
    await r.k.settled();
    expect(r.surfaces.telegram.privately.map((p) => p.text)).toEqual(['"launch" is not an answer to this question.']);
    expect((await r.k.kazma.core.questions.get(id))!.state).toBe('open');
    expect(r.incidents).toEqual([]);
  });
});

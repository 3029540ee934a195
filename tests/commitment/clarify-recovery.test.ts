// A clarify card whose decision was committed by a process that stopped before it wrote the message's
// outbox row: the decision's one statement records that its effect is still owed, so the next start
// (or, on PostgreSQL, the sweep once the decision is past its staleness wait) posts the message to the
// chosen chat once. Cancel posts nothing; two sweeps at once, or a sweep after the message already went
// out, post nothing more. The stop is the decision's statement run alone, then the process stopped.
import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Actor, ChatRef } from '../../src/core/surface/index.ts';
import { decisionQuestions } from '../../src/core/db/schema/questions.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { kazmasOnOneDatabase, type Assembled } from '../helpers/assembled.ts';
import { BACKENDS } from '../helpers/databases.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';

const CHAT: ChatRef = 'telegram:1';
const MAYA: Actor = { platform: 'telegram', id: '42' };
const MESSAGE = { chat: 'slack:COPS', text: 'the build is green' };

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});
afterEach(() => {
  llm.requests.length = 0;
});

/** Time passes: the question's last change is now older than the sweep's staleness wait (60 s). */
const twoMinutesPass = (k: Assembled, id: string) =>
  k.database.db
    .update(decisionQuestions)
    .set({ updatedAt: sql`${decisionQuestions.updatedAt} - interval '2 minutes'` })
    .where(eq(decisionQuestions.id, id));

describe.each(BACKENDS)('a clarify decision whose message was never written [%s]', (backend) => {
  const kazmas = kazmasOnOneDatabase(backend);
  // One set of surfaces across the restart: they stand for the platforms, which outlive a process.
  let telegram: RecordingSurface;
  let slack: RecordingSurface;
  const posts = () => [...telegram.sent, ...slack.sent].filter((s) => s.chat !== CHAT);
  beforeEach(() => {
    telegram = new RecordingSurface('telegram');
    slack = new RecordingSurface('slack');
  });

  function start(): Promise<Assembled> {
    return kazmas.start(
      {
        model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 0 },
        access: { operators: [{ name: 'maya', telegram: '42' }] },
        outbound: { targets: { ops: 'slack:COPS', team: 'telegram:-100200' }, allow_targets: ['ops', 'team'] },
      },
      { surfaces: [telegram, slack] },
    );
  }

  /** The agent sends to a target that is not allowed: a clarify card. Returns the question's id. */
  async function askWhere(k: Assembled): Promise<string> {
    llm.script(
      { toolCalls: [{ name: 'send_message', args: { to: 'opz', text: MESSAGE.text } }] },
      { text: 'Asked where it should go.' },
    );
    await k.kazma.core.pipeline.handle({
      kind: 'message',
      eventId: randomUUID(),
      platform: 'telegram',
      chat: CHAT,
      actor: MAYA,
      text: 'tell opz the build is green',
    });
    await k.settled();
    const card = telegram.openCard()!;
    expect(card.card.title).toBe('Where should this message go? "opz" is not an allowed target.');
    return card.card.buttons[0]!.id.split(':')[1]!;
  }

  /** The decision's statement and nothing after it (no card edits, no message), then the process stops. */
  async function decideThenStop(k: Assembled, id: string, decision: string): Promise<void> {
    const { won } = await k.kazma.core.questions.kind.settle({ id, decision, actor: MAYA });
    expect(won).toBe(true);
    await kazmas.stop(k);
    expect(posts()).toEqual([]);
  }

  const effectOf = async (k: Assembled, id: string) =>
    (
      await k.database.db
        .select({ effect: decisionQuestions.effect })
        .from(decisionQuestions)
        .where(eq(decisionQuestions.id, id))
    )[0]?.effect;

  it('the chosen chat gets the message once, at the next start or its sweep; the cards say who decided', async () => {
    const first = await start();
    const id = await askWhere(first);
    await decideThenStop(first, id, 't0');

    const second = await start();
    await second.settled();
    // On the embedded database this process is the only one: what the last run left owed is carried out at start.
    if (backend === 'pglite') expect(posts()).toEqual([MESSAGE]);
    // Elsewhere another live process may hold it: the sweep carries it out once the staleness wait has passed.
    await twoMinutesPass(second, id);
    const sweep = () => second.kazma.core.questions.recoverEffects();
    await Promise.all([sweep(), sweep()]);
    await sweep();
    await second.settled();
    expect(posts()).toEqual([MESSAGE]);
    expect(await effectOf(second, id)).toBe('done');
    const card = telegram.cards.find((c) => c.card.buttons[0]?.id.includes(id))!;
    expect(card.edits.at(-1)?.footer).toMatch(/^ops \(slack:COPS\) by maya on Telegram/);
  });

  it('Cancel decided before the stop: nothing is posted, and nothing stays owed', async () => {
    const first = await start();
    const id = await askWhere(first);
    await decideThenStop(first, id, 'cancel');

    const second = await start();
    await twoMinutesPass(second, id);
    await second.kazma.core.questions.recoverEffects();
    await second.settled();
    expect(posts()).toEqual([]);
    expect(await effectOf(second, id)).toBe('done');
  });

  it('the message went out and only the record of it was lost: a recovery does not post it again', async () => {
    const first = await start();
    const id = await askWhere(first);
    const tap = telegram.openCard()!.card.buttons[0]!.id;
    await first.kazma.core.pipeline.handle({
      kind: 'action',
      eventId: randomUUID(),
      platform: 'telegram',
      chat: CHAT,
      actor: MAYA,
      actionId: tap,
    });
    await first.settled();
    expect(posts()).toEqual([MESSAGE]);
    expect(await effectOf(first, id)).toBe('done');
    // A stop between the outbox row and the "done" mark leaves the effect owed, though the message is out.
    await first.database.db.update(decisionQuestions).set({ effect: 'owed' }).where(eq(decisionQuestions.id, id));
    await kazmas.stop(first);

    const second = await start();
    await twoMinutesPass(second, id);
    await Promise.all([second.kazma.core.questions.recoverEffects(), second.kazma.core.questions.recoverEffects()]);
    await second.kazma.core.questions.recoverEffects();
    await second.settled();
    expect(posts()).toEqual([MESSAGE]);
    expect(await effectOf(second, id)).toBe('done');
  });
});

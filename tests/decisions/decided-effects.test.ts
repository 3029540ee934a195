// What a decided question owes its kind's handler, for any kind: the deciding statement records it as
// owed; a handler that fails (as a stop would) leaves it owed, and the sweep runs the handler again once
// the decision is past its staleness wait — once, however many sweeps run, and never after it is done.
// A kind nobody acts on owes nothing; a decision younger than the wait is left to its live process.
import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Actor, ChatRef } from '../../src/core/surface/index.ts';
import { decisionQuestions } from '../../src/core/db/schema/questions.ts';
import type { Question } from '../../src/core/decisions/questions.ts';
import { kazmasOnOneDatabase, type Assembled } from '../helpers/assembled.ts';
import { BACKENDS } from '../helpers/databases.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';

const CHAT: ChatRef = 'telegram:1';
const MAYA: Actor = { platform: 'telegram', id: '42' };
const OPTIONS = [
  { id: 'go', label: 'Go', style: 'primary' as const },
  { id: 'stop', label: 'Stop', style: 'secondary' as const },
];

/** Time passes: the question's last change is now older than the sweep's staleness wait (60 s). */
const twoMinutesPass = (k: Assembled, id: string) =>
  k.database.db
    .update(decisionQuestions)
    .set({ updatedAt: sql`${decisionQuestions.updatedAt} - interval '2 minutes'` })
    .where(eq(decisionQuestions.id, id));

describe.each(BACKENDS)('a decided question owes its effect until its handler has acted [%s]', (backend) => {
  const kazmas = kazmasOnOneDatabase(backend);
  let telegram: RecordingSurface;
  beforeEach(() => {
    telegram = new RecordingSurface('telegram');
  });

  const start = () =>
    kazmas.start(
      {
        model: { name: 'fake-model', base_url: 'http://127.0.0.1:9/v1', max_retries: 0 },
        access: { operators: [{ name: 'maya', telegram: '42' }] },
      },
      { surfaces: [telegram] },
    );

  /** Asks a question of `kind` in the chat and taps `answer` on its card, as Telegram would deliver the tap. */
  async function askAndTap(k: Assembled, kind: string, answer: string): Promise<string> {
    const question = await k.kazma.core.questions.ask({
      kind,
      title: 'Go ahead?',
      options: OPTIONS,
      chat: CHAT,
      destinations: [CHAT],
      subject: { n: 1 },
    });
    await k.settled();
    await k.kazma.core.pipeline.handle({
      kind: 'action',
      eventId: randomUUID(),
      platform: 'telegram',
      chat: CHAT,
      actor: MAYA,
      actionId: `q:${question.id}:${answer}`,
    });
    await k.settled();
    return question.id;
  }

  const effectOf = async (k: Assembled, id: string) =>
    (
      await k.database.db
        .select({ effect: decisionQuestions.effect })
        .from(decisionQuestions)
        .where(eq(decisionQuestions.id, id))
    )[0]?.effect;

  it('a handler that fails leaves the effect owed; the sweep runs it again once, and never after it is done', async () => {
    const k = await start();
    const runs: Array<{ question: Question; by: string }> = [];
    let failures = 1;
    k.kazma.core.questions.onDecided('test_owed', async (question, actor) => {
      runs.push({ question, by: actor.id });
      if (failures-- > 0) throw new Error('the database went away mid-effect');
    });
    const id = await askAndTap(k, 'test_owed', 'go');
    expect(runs).toHaveLength(1);
    expect(await effectOf(k, id)).toBe('owed');
    // The decision stands, its cards say so, and whoever tapped is not told it failed: it is not over.
    expect(telegram.cards[0]!.edits.at(-1)?.footer).toMatch(/^Go by maya on Telegram/);
    expect(telegram.sent).toEqual([]);
    // A sweep before the staleness wait leaves it to the process that decided it.
    expect(await k.kazma.core.questions.recoverEffects()).toBe(0);
    expect(runs).toHaveLength(1);

    await twoMinutesPass(k, id);
    const sweep = () => k.kazma.core.questions.recoverEffects();
    expect((await Promise.all([sweep(), sweep()])).reduce((a, b) => a + b)).toBe(1);
    expect(await sweep()).toBe(0);
    expect(runs).toHaveLength(2);
    expect(runs[1]).toMatchObject({ question: { id, decision: 'go', subject: { n: 1 } }, by: '42' });
    expect(await effectOf(k, id)).toBe('done');
  });

  it("a kind nobody acts on owes nothing once decided; a loser's tap owes nothing more", async () => {
    const k = await start();
    const id = await askAndTap(k, 'test_free', 'stop');
    expect(await effectOf(k, id)).toBe('done');
    await k.kazma.core.pipeline.handle({
      kind: 'action',
      eventId: randomUUID(),
      platform: 'telegram',
      chat: CHAT,
      actor: MAYA,
      actionId: `q:${id}:go`,
    });
    await k.settled();
    expect(telegram.privately.at(-1)?.text).toMatch(/^Already decided: Stop by maya/);
    expect(await effectOf(k, id)).toBe('done');
    await twoMinutesPass(k, id);
    expect(await k.kazma.core.questions.recoverEffects()).toBe(0);
  });
});

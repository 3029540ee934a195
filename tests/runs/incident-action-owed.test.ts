// Retry or Cancel on an incident card is carried out even when its first attempt fails (or a stop comes
// between the incident's close and the action). The decision's effect stays owed, and the sweep runs the
// handler again; before the fix the handler found the incident already closed by that first attempt and
// did nothing, so the Retry the person tapped was lost while the card said it was decided. An action that
// got through is not run a second time, and an incident that recovered on its own is not acted on.
import { eq, sql } from 'drizzle-orm';
import { expect, it } from 'vitest';
import type { Actor, ChatRef } from '../../src/core/surface/index.ts';
import { SurfaceRegistry } from '../../src/core/surface/surfaces.ts';
import { parseConfig } from '../../src/core/config/load.ts';
import { runIncidents } from '../../src/core/db/schema/incidents.ts';
import { decisionQuestions } from '../../src/core/db/schema/questions.ts';
import { FirstDecisionWins } from '../../src/core/decisions/first-wins.ts';
import { Questions } from '../../src/core/decisions/questions.ts';
import { createLogger } from '../../src/core/log/index.ts';
import { createRuns } from '../../src/core/runs/module.ts';
import type { Finding, IncidentAction, WatchedKind } from '../../src/core/runs/watch.ts';
import { describeEachBackend } from '../helpers/databases.ts';
import { REPO_ROOT } from '../helpers/repo-root.ts';

const MAYA: Actor = { platform: 'telegram', id: '42', displayName: 'Maya' };

describeEachBackend("an incident's action whose first attempt failed", (database) => {
  const setup = () => {
    const db = database().db;
    const clock = { now: () => new Date() };
    const decisions = new FirstDecisionWins({
      db,
      outbox: { dispatch: async () => {} },
      surfaces: new SurfaceRegistry(),
    });
    const questions = new Questions({ db, decisions, clock, mayDecide: () => undefined, operatorName: () => 'maya' });
    const workId = `task_${Math.random().toString(36).slice(2, 10)}`;
    const stuck: Finding = {
      workId,
      problem: 'failed',
      since: new Date(Date.now() - 10 * 60_000),
      detail: 'the model call failed',
      chat: 'telegram:1' as ChatRef,
    };
    /** What the work's owner was asked to do, in order; the first `failures` attempts throw, as a database gone away would. */
    const acted: IncidentAction[] = [];
    const failing = { failures: 0, stuck: true };
    const kind: WatchedKind = {
      kind: 'task',
      tables: ['tasks'],
      actions: ['retry', 'cancel'],
      scan: async () => (failing.stuck ? [stuck] : []),
      act: async (action) => {
        if (failing.failures-- > 0) throw new Error('the database went away mid-retry');
        acted.push(action);
        return `task ${workId}: queued again`;
      },
    };
    const loaded = parseConfig('', { env: {}, baseDir: REPO_ROOT });
    const runs = createRuns({
      loaded,
      db,
      questions,
      kinds: [kind],
      clock,
      logger: createLogger({ level: 'silent', pretty: false }),
    });
    const incident = async () => (await db.select().from(runIncidents).where(eq(runIncidents.workId, workId)))[0]!;
    /** Time passes: the decision is older than the sweep's staleness wait for owed effects (60 s). */
    const twoMinutesPass = (questionId: string) =>
      db
        .update(decisionQuestions)
        .set({ updatedAt: sql`${decisionQuestions.updatedAt} - interval '2 minutes'` })
        .where(eq(decisionQuestions.id, questionId));
    const effectOf = async (questionId: string) =>
      (
        await db
          .select({ effect: decisionQuestions.effect })
          .from(decisionQuestions)
          .where(eq(decisionQuestions.id, questionId))
      )[0]!.effect;
    return { runs, questions, incident, acted, failing, twoMinutesPass, effectOf };
  };

  it('Retry whose action failed once is carried out by the sweep, once; the incident stays decided', async () => {
    const { runs, questions, incident, acted, failing, twoMinutesPass, effectOf } = setup();
    expect(await runs.supervisor.sweep()).toMatchObject({ opened: 1 });
    const opened = await incident();
    failing.failures = 1;
    const decided = await questions.decide({ id: opened.questionId!, decision: 'retry', actor: MAYA });
    expect(decided.ok).toBe(true);
    // The first attempt threw after the incident was closed: nothing acted yet, the effect still owed.
    expect(acted).toEqual([]);
    expect(await incident()).toMatchObject({ state: 'decided', decision: 'retry' });
    expect(await effectOf(opened.questionId!)).toBe('owed');

    await twoMinutesPass(opened.questionId!);
    expect(await questions.recoverEffects()).toBe(1);
    // Before the fix: [] — the handler saw the incident closed and returned, and the effect was marked done.
    expect(acted).toEqual(['retry']);
    expect(await effectOf(opened.questionId!)).toBe('done');
    // Done means done: later sweeps run nothing again.
    await twoMinutesPass(opened.questionId!);
    expect(await questions.recoverEffects()).toBe(0);
    expect(acted).toEqual(['retry']);
    expect(await incident()).toMatchObject({ state: 'decided', decision: 'retry' });
  });

  it('an incident that recovered before the tap is not acted on', async () => {
    const { runs, questions, incident, acted, failing } = setup();
    await runs.supervisor.sweep();
    const opened = await incident();
    failing.stuck = false;
    expect(await runs.supervisor.sweep()).toMatchObject({ recovered: 1 });
    const decided = await questions.decide({ id: opened.questionId!, decision: 'cancel', actor: MAYA });
    expect(decided.ok).toBe(false);
    expect(acted).toEqual([]);
    expect(await incident()).toMatchObject({ state: 'recovered' });
  });
});

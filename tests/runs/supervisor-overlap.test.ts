// Two sweeps at once (BullMQ schedules the next sweep as the current one starts; two processes each
// sweep). A sweep compared the open incidents it listed against a scan for trouble taken *before* that
// listing: an incident another sweep opened in between was in the listing but not in the older scan, so
// it was closed as "recovered" while its work was still stuck — and, the same episode being unique, never
// reported again. Now a sweep lists open incidents before it scans, so it only judges incidents its scan
// could have seen. And an incident closed before its cards were written gets no cards: buttons on a closed
// incident would do nothing.
import { expect, it } from 'vitest';
import type { ChatRef } from '../../src/core/surface/index.ts';
import { SurfaceRegistry } from '../../src/core/surface/surfaces.ts';
import { runIncidents } from '../../src/core/db/schema/incidents.ts';
import { outbox } from '../../src/core/db/schema/outbox.ts';
import { FirstDecisionWins } from '../../src/core/decisions/first-wins.ts';
import { Questions } from '../../src/core/decisions/questions.ts';
import { RunSupervisor, type RunSupervisorOptions } from '../../src/core/runs/supervisor.ts';
import type { Finding, WatchedKind } from '../../src/core/runs/watch.ts';
import { describeEachBackend } from '../helpers/databases.ts';

describeEachBackend('two sweeps at once', (database) => {
  const setup = () => {
    const db = database().db;
    const clock = { now: () => new Date() };
    const decisions = new FirstDecisionWins({
      db,
      outbox: { dispatch: async () => {} },
      surfaces: new SurfaceRegistry(),
    });
    const questions = new Questions({
      db,
      decisions,
      clock,
      mayDecide: () => undefined,
      operatorName: () => undefined,
    });
    const workId = `task_${Math.random().toString(36).slice(2, 10)}`;
    const stuck: Finding = {
      workId,
      problem: 'stalled',
      since: new Date(Date.now() - 10 * 60_000),
      detail: 'no progress',
      chat: 'telegram:1' as ChatRef,
    };
    /** A task kind whose scan finds `stuck` while `isStuck()`, and runs `during` (once) after it scanned. */
    const kind = (isStuck: () => boolean, during?: { run?: () => Promise<void> }): WatchedKind => ({
      kind: 'task',
      tables: ['tasks'],
      actions: ['retry'],
      scan: async () => {
        const found = isStuck() ? [stuck] : [];
        const run = during?.run;
        if (run) {
          delete during.run;
          await run();
        }
        return found;
      },
      act: async () => 'acted',
    });
    const supervisor = (k: WatchedKind, extra: Partial<RunSupervisorOptions> = {}) =>
      new RunSupervisor({
        db,
        kinds: [k],
        questions,
        stallAfter: { task: 1 } as RunSupervisorOptions['stallAfter'],
        alertChannels: [],
        clock,
        ...extra,
      });
    const incidentOf = async () => (await db.select().from(runIncidents)).filter((row) => row.workId === workId);
    const cards = async () =>
      (await db.select().from(outbox)).filter((row) => JSON.stringify(row.payload).includes(workId));
    return { stuck, kind, supervisor, incidentOf, cards };
  };

  it('an incident another sweep opened after this one scanned stays open, with its cards', async () => {
    const { kind, supervisor, incidentOf, cards } = setup();
    let stuckNow = false;
    // S1 scans before the work counts as stuck; while it is between its scan and the rest of its sweep,
    // the work becomes stuck and S2 sweeps, opening the incident.
    const during: { run?: () => Promise<void> } = {
      run: async () => {
        stuckNow = true;
        expect(await supervisor(kind(() => stuckNow)).sweep()).toEqual({ opened: 1, recovered: 0 });
      },
    };
    const first = await supervisor(kind(() => stuckNow, during)).sweep();
    // Before the fix: { opened: 0, recovered: 1 }, the incident 'recovered' although the work is stuck.
    expect(first.recovered).toBe(0);
    const [incident] = await incidentOf();
    expect(incident).toMatchObject({ state: 'open' });
    expect(incident!.questionId).not.toBeNull();
    expect((await cards()).length).toBeGreaterThan(0);
    // The next sweep still sees it stuck: the incident stays open, not reopened, not recovered.
    expect(await supervisor(kind(() => true)).sweep()).toEqual({ opened: 0, recovered: 0 });
    expect((await incidentOf()).map((row) => row.state)).toEqual(['open']);
  });

  it('an incident closed before its cards were written gets none', async () => {
    const { kind, supervisor, incidentOf, cards } = setup();
    let stuckNow = true;
    // S2 opens the incident and stops before its cards; meanwhile the work moves and S1 closes it as recovered.
    const opener = supervisor(
      kind(() => stuckNow),
      {
        onStage: async (stage) => {
          if (stage !== 'incident-row') return;
          stuckNow = false;
          expect(await supervisor(kind(() => stuckNow)).sweep()).toEqual({ opened: 0, recovered: 1 });
        },
      },
    );
    await opener.sweep();
    expect((await incidentOf()).map((row) => row.state)).toEqual(['recovered']);
    // Before the fix the question and its card rows were written for the closed incident.
    expect(await cards()).toEqual([]);
    expect((await incidentOf())[0]!.questionId).toBeNull();
  });
});

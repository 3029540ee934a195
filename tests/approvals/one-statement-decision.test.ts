// A decision is one statement (core/decisions/compare-and-set.ts): the compare-and-set, its audit row
// and — for a loser — the row as the winner left it. Counted through a second drizzle handle that keeps
// every statement it sends, on PGlite and PostgreSQL: 50 deciders at once give one winner, one audit
// row per attempt written by that attempt's own claim statement, and every loser is told the winner.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DurableApprovalBroker } from '../../src/core/approvals/durable-broker.ts';
import type { DecideOutcome, Decision, Gate } from '../../src/core/approvals/port.ts';
import { transitionGate } from '../../src/core/approvals/transition.ts';
import { SurfaceRegistry, type Actor } from '../../src/core/surface/index.ts';
import { decisionAudit } from '../../src/core/db/schema/decision-audit.ts';
import { FirstDecisionWins } from '../../src/core/decisions/first-wins.ts';
import { Questions } from '../../src/core/decisions/questions.ts';
import { createLogger } from '../../src/core/log/index.ts';
import { and, eq } from 'drizzle-orm';
import { describeEachBackend } from '../helpers/databases.ts';
import { eventually } from '../helpers/eventually.ts';
import { countingDb, type CountingDb } from './counting-db.ts';
import { audit, auditCounts, TG } from './helpers.ts';

const NAMES: Record<string, string> = { '42': 'maya', '43': 'ana', '44': 'ben', '45': 'cy' };
const ACTORS: Actor[] = [TG.maya, TG.ana, TG.ben, TG.cy];
const logger = createLogger({ level: 'silent' });

/** Statements that read or write the decision's own tables (not the outbox rows of the card edits). */
const decisionStatements = (statements: string[], tables: string[]) =>
  statements.filter((s) => tables.some((t) => s.includes(`"${t}"`)));

describeEachBackend('a decision is one statement', (database, backend) => {
  let counting: CountingDb;
  let decisions: FirstDecisionWins;
  beforeAll(() => {
    counting = countingDb(database());
    decisions = new FirstDecisionWins({
      db: counting.db,
      outbox: { dispatch: async () => {} },
      surfaces: new SurfaceRegistry(),
      logger,
    });
  });
  afterAll(async () => {
    await counting.close();
  });

  const broker = () =>
    new DurableApprovalBroker({
      db: counting.db,
      decisions,
      channels: [],
      logger,
      timeoutMs: 3_600_000,
      grantTtlMs: 3_600_000,
      mayDecide: () => undefined,
      operatorName: (actor) => NAMES[actor.id],
    });
  const open = (b: DurableApprovalBroker, n: string): Promise<Gate> =>
    b.open({
      threadId: `t-${n}`,
      interruptId: `i-${n}`,
      chat: 'telegram:1',
      requester: TG.maya,
      call: {
        kind: 'tool_approval',
        callId: `c-${n}`,
        tool: 'launch',
        args: { target: n },
        tier: 'danger',
        reason: 'test',
      },
    });

  it('50 deciders at once on one gate: one winner, one statement and one audit row per attempt, every loser told the winner', async () => {
    const b = broker();
    const gate = await open(b, 'fifty');
    counting.reset();
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        b.decide({
          gateId: gate.gateId,
          decision: (i % 3 === 0 ? 'deny' : 'once') as Decision,
          actor: ACTORS[i % ACTORS.length]!,
          seen: gate,
        }),
      ),
    );

    const winners = outcomes.filter((o): o is Extract<DecideOutcome, { ok: true }> => o.ok);
    expect(winners).toHaveLength(1);
    const winner = winners[0]!.gate;
    expect(winner).toMatchObject({ state: 'claimed', decidedPlatform: 'telegram' });
    expect(await auditCounts(database().db, gate.gateId)).toEqual({ won: 1, lost: 49 });

    // Each attempt touched the gate and its audit in exactly one statement, which did both.
    const own = decisionStatements(counting.statements, ['approval_gates', 'decision_audit']);
    expect(own).toHaveLength(50);
    for (const statement of own)
      expect(statement).toMatch(/update "approval_gates"[\s\S]*insert into "decision_audit"/);

    // Every loser is told the winner — name, decision and state — from its own statement's answer.
    for (const loser of outcomes.filter((o) => !o.ok)) {
      expect(loser).toMatchObject({
        ok: false,
        reason: 'decided',
        gate: { state: 'claimed', decidedBy: winner.decidedBy, decision: winner.decision },
      });
      expect(loser.message).toContain(`by ${winner.decidedBy} on Telegram`);
    }
  });

  it('the same event deciding again is the same attempt: no second row, unless that run now wins', async () => {
    let refusal: string | undefined = 'not yet';
    const b = new DurableApprovalBroker({
      db: counting.db,
      decisions,
      channels: [],
      logger,
      timeoutMs: 3_600_000,
      grantTtlMs: 3_600_000,
      mayDecide: () => refusal,
      operatorName: (actor) => NAMES[actor.id],
    });
    const gate = await open(b, 'again');
    const decide = (eventKey?: string) =>
      b.decide({ gateId: gate.gateId, decision: 'once', actor: TG.maya, seen: gate, ...(eventKey && { eventKey }) });
    const rows = async () =>
      (await audit(database().db, gate.gateId)).map((r) => [r.outcome, r.eventKey, r.actor?.operator]);

    // Refused, and the same event refused again after a stop: one row.
    expect(await decide('telegram:e1')).toMatchObject({ ok: false, reason: 'refused' });
    expect(await decide('telegram:e1')).toMatchObject({ ok: false, reason: 'refused' });
    expect(await rows()).toEqual([['refused', 'telegram:e1', 'maya']]);

    // The rules changed before the event ran again, and now it wins: its row is the win, still one statement.
    refusal = undefined;
    counting.reset();
    expect(await decide('telegram:e1')).toMatchObject({ ok: true });
    expect(decisionStatements(counting.statements, ['approval_gates', 'decision_audit'])).toHaveLength(1);
    expect(await rows()).toEqual([['won', 'telegram:e1', 'maya']]);

    // Run again once more it loses to itself: it writes nothing and is nobody's loss (replayed: nobody is told);
    // another event, or a call with none, is an attempt.
    expect(await decide('telegram:e1')).toMatchObject({ ok: false, reason: 'replayed', message: '' });
    await decide('telegram:e2');
    await decide();
    await decide();
    expect(await rows()).toEqual([
      ['won', 'telegram:e1', 'maya'],
      ['lost', 'telegram:e2', 'maya'],
      ['lost', null, 'maya'],
      ['lost', null, 'maya'],
    ]);
  });

  // Only PostgreSQL has concurrent sessions, so only there can a statement wait behind another's
  // uncommitted claim (PGlite is one session: statements take turns whole).
  if (backend === 'postgres')
    it('a loser whose statement waited behind an uncommitted winner is told that winner, not the stale pending row', async () => {
      const b = broker();
      const gate = await open(b, 'waiting');
      let loser: Promise<DecideOutcome> | undefined;
      await database().db.transaction(async (tx) => {
        const won = await transitionGate(tx, {
          id: gate.gateId,
          from: 'pending',
          to: 'claimed',
          patch: {
            decision: 'deny',
            decidedBy: { platform: 'telegram', id: '42', operator: 'maya' },
            decidedPlatform: 'telegram',
            claimedAt: new Date(),
          },
          audit: { actor: { platform: 'telegram', id: '42', operator: 'maya' }, decision: 'deny' },
        });
        expect(won.ok).toBe(true);
        // Ana's statement starts while maya's claim is not committed: its snapshot still says "pending".
        loser = b.decide({ gateId: gate.gateId, decision: 'once', actor: TG.ana, seen: gate });
        await eventually(
          () =>
            database().db.execute(
              sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
            ),
          (rows) => (rows as unknown as Array<{ n: number }>)[0]!.n >= 1,
          "ana's decision waiting for the gate's row lock",
        );
      });
      expect(await loser).toMatchObject({
        ok: false,
        reason: 'decided',
        gate: { state: 'claimed', decision: 'deny', decidedBy: 'maya' },
      });
      expect(await auditCounts(database().db, gate.gateId)).toEqual({ won: 1, lost: 1 });
    });

  it('questions (incident and clarify cards) decide by the same one statement: one winner, one audit row per attempt, a non-answer is lost', async () => {
    const questions = new Questions({
      db: counting.db,
      decisions,
      mayDecide: () => undefined,
      operatorName: (actor) => NAMES[actor.id],
      clock: { now: () => new Date() },
    });
    const question = await questions.ask({
      kind: 'incident',
      title: 'Task stalled',
      chat: 'telegram:1',
      destinations: ['telegram:1'],
      options: [
        { id: 'retry', label: 'Retry', style: 'primary' },
        { id: 'cancel', label: 'Cancel', style: 'danger' },
      ],
    });
    const wrong = await questions.decide({ id: question.id, decision: 'explode', actor: TG.ben, seen: question });
    expect(wrong).toMatchObject({
      ok: false,
      reason: 'decided',
      message: '"explode" is not an answer to this question.',
    });

    counting.reset();
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        questions.decide({
          id: question.id,
          decision: i % 2 ? 'retry' : 'cancel',
          actor: ACTORS[i % ACTORS.length]!,
          seen: question,
        }),
      ),
    );
    const winners = outcomes.filter((o) => o.ok);
    expect(winners).toHaveLength(1);
    const won = winners[0]!.question;
    expect(won).toMatchObject({ state: 'decided' });
    const own = decisionStatements(counting.statements, ['decision_questions', 'decision_audit']);
    // Besides the 50 decisions: the winner's one mark, after its handler, that the effect its decision
    // recorded as owed was carried out (decisions/decided-effects.ts).
    const done = own.filter((s) => s.startsWith('update "decision_questions" set "effect"'));
    expect(done).toHaveLength(1);
    expect(own.length - done.length).toBe(50);
    for (const loser of outcomes.filter((o) => !o.ok)) {
      expect(loser).toMatchObject({
        reason: 'decided',
        question: { state: 'decided', decision: won.decision, decidedBy: won.decidedBy },
      });
    }
    const rows = await database()
      .db.select()
      .from(decisionAudit)
      .where(and(eq(decisionAudit.kind, 'question'), eq(decisionAudit.subjectId, question.id)));
    const counts: Record<string, number> = {};
    for (const r of rows) counts[r.outcome] = (counts[r.outcome] ?? 0) + 1;
    expect(counts).toEqual({ won: 1, lost: 50 }); // 49 racing losers and the non-answer
    expect(rows.find((r) => r.outcome === 'won')).toMatchObject({
      decision: won.decision,
      actor: { operator: won.decidedBy },
    });
  });
});

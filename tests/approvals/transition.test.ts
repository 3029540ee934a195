import { eq } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { IllegalTransitionError, LEGAL_MOVES, transitionGate } from '../../src/core/approvals/transition.ts';
import { approvalGates, GATE_STATES, type GateState } from '../../src/core/db/schema/approvals.ts';
import type { Db } from '../../src/core/db/index.ts';
import { describeEachBackend } from '../helpers/databases.ts';

let counter = 0;
async function insertGate(db: Db, state: GateState = 'pending'): Promise<string> {
  const id = `g${++counter}x${Date.now().toString(36)}`;
  await db.insert(approvalGates).values({
    id,
    interruptId: 'i'.repeat(32),
    threadId: 'console:local',
    callId: `call_${counter}`,
    tool: 'shell',
    args: { command: 'touch a' },
    argsHash: 'h',
    state,
    expiresAt: new Date(Date.now() + 60_000),
  });
  return id;
}

describeEachBackend('gate state machine', (database) => {
  it('a legal move changes the row and returns it', async () => {
    const id = await insertGate(database().db);
    const result = await transitionGate(database().db, {
      id,
      from: 'pending',
      to: 'claimed',
      patch: { decision: 'once', claimedAt: new Date() },
    });
    expect(result.ok).toBe(true);
    expect(result.gate).toMatchObject({ id, state: 'claimed', decision: 'once' });
  });

  it.each(
    GATE_STATES.flatMap((from) =>
      GATE_STATES.filter((to) => !LEGAL_MOVES[from].includes(to)).map((to) => [from, to] as const),
    ),
  )('illegal %s → %s throws and leaves the row unchanged', async (from, to) => {
    const id = await insertGate(database().db, from);
    const [before] = await database().db.select().from(approvalGates).where(eq(approvalGates.id, id));
    await expect(transitionGate(database().db, { id, from, to })).rejects.toBeInstanceOf(IllegalTransitionError);
    const [after] = await database().db.select().from(approvalGates).where(eq(approvalGates.id, id));
    expect(after).toEqual(before);
  });

  it('a move from a state the row is not in fails and returns the real row unchanged', async () => {
    const id = await insertGate(database().db, 'timeout');
    const [before] = await database().db.select().from(approvalGates).where(eq(approvalGates.id, id));
    const result = await transitionGate(database().db, {
      id,
      from: 'pending',
      to: 'claimed',
      patch: { decision: 'once' },
    });
    expect(result).toEqual({ ok: false, gate: before });
  });

  it('200 concurrent claims of one gate: exactly one winner, every loser sees the winner', async () => {
    const id = await insertGate(database().db);
    const attempts = Array.from({ length: 200 }, (_, i) =>
      transitionGate(database().db, {
        id,
        from: 'pending',
        to: 'claimed',
        patch: {
          decision: i % 3 === 0 ? 'deny' : 'once',
          decidedBy: { platform: 'slack', id: `U${i}` },
          decidedPlatform: 'slack',
          claimedAt: new Date(),
        },
      }),
    );
    const results = await Promise.all(attempts);
    const winners = results.filter((r) => r.ok);
    expect(winners).toHaveLength(1);
    const winner = winners[0]!.gate!;
    for (const loser of results.filter((r) => !r.ok)) {
      expect(loser.gate).toMatchObject({ state: 'claimed', decision: winner.decision, decidedBy: winner.decidedBy });
    }
  });
});

// "Always" answers: the grant a decided gate leaves, and the grants in force as the commands show them.
import type { Db } from '../db/index.ts';
import { runQueue } from '../runs/index.ts';
import type { ChatRef } from '../surface/index.ts';
import * as store from './gate-store.ts';
import { gateFromRow } from './gate-view.ts';
import type { Grant } from './port.ts';
import type { GateRow } from './transition.ts';

/**
 * An "always" answer covers the same call in the same chat until `expiresAt`. It records how many operators gave it
 * (a policy's quorum, else one), so it never covers a call whose policy asks for more.
 */
export async function grantIfAlways(db: Db, row: GateRow, expiresAt: Date): Promise<void> {
  if (row.decision !== 'always') return;
  const gate = gateFromRow(row);
  await store.addGrant(db, {
    chat: runQueue(gate),
    tool: gate.call.tool,
    args: gate.call.args,
    grantedBy: row.decidedBy ?? undefined,
    gateId: gate.gateId,
    approvals: row.approvals.length || 1,
    expiresAt,
  });
}

/** The grants in force (of one chat, or all), oldest first. */
export async function liveGrants(db: Db, chat: ChatRef | undefined, now: Date): Promise<Grant[]> {
  const rows = await store.liveGrants(db, chat, now);
  return rows.map((r) => ({
    id: r.id,
    chat: r.chat as ChatRef,
    tool: r.tool,
    expiresAt: r.expiresAt,
    ...(r.grantedBy && { grantedBy: r.grantedBy.operator ?? r.grantedBy.id }),
  }));
}

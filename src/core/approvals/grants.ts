// "Always" answers: the grant a decided gate leaves, and the grants in force as the commands show them.
import { randomBytes } from 'node:crypto';
import { and, eq, gt, gte, isNull } from 'drizzle-orm';
import { type Db, approvalGrants, type StoredActor } from '../db/index.ts';
import { canonicalArgsHash } from '../effects/index.ts';
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
  await addGrant(db, {
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

/**
 * The argument pattern an "always" covers. For shell it is the exact command (argv), so approving
 * `git status` never approves `rm -rf src`; for other tools the canonical arguments.
 */
export function grantPattern(args: unknown): string {
  return canonicalArgsHash(args ?? {});
}

export async function addGrant(
  db: Db,
  grant: {
    chat: string;
    tool: string;
    args: unknown;
    grantedBy?: StoredActor;
    gateId?: string;
    approvals?: number;
    expiresAt: Date;
  },
): Promise<string> {
  const id = `gr_${randomBytes(6).toString('base64url')}`;
  await db.insert(approvalGrants).values({
    id,
    chat: grant.chat,
    tool: grant.tool,
    pattern: grantPattern(grant.args),
    grantedBy: grant.grantedBy,
    gateId: grant.gateId,
    approvals: grant.approvals ?? 1,
    expiresAt: grant.expiresAt,
  });
  return id;
}

/** The live grant covering this call in this chat, if any, given by at least `approvals` operators (default 1). */
export async function findGrant(
  db: Db,
  call: { chat: string; tool: string; args: unknown; approvals?: number },
  now: Date,
) {
  const [row] = await db
    .select()
    .from(approvalGrants)
    .where(
      and(
        eq(approvalGrants.chat, call.chat),
        eq(approvalGrants.tool, call.tool),
        eq(approvalGrants.pattern, grantPattern(call.args)),
        gte(approvalGrants.approvals, call.approvals ?? 1),
        gt(approvalGrants.expiresAt, now),
        isNull(approvalGrants.revokedAt),
      ),
    )
    .limit(1);
  return row;
}

// The approvals audit as someone outside can read it: one record per step of every question (asked: the audit's
// `requested` row; each approval, the decision, refusals, losers, expiry), with the exact arguments masked as the
// cards show them. The same rows give the same bytes (fixed order, fixed keys, UTC times), so an export can be
// diffed and archived.
import { and, asc, eq, gte, inArray, type SQL } from 'drizzle-orm';
import { approvalGates, type Db, decisionAudit, type StoredActor } from '../db/index.ts';
import { maskSecrets, maskText } from '../secrets/index.ts';

/** One step of one question. Every field is always present (null when it does not apply). */
export interface ApprovalRecord {
  at: string;
  gate: string;
  /** `requested`, then the audit's outcomes: `counted`, `won`, `lost`, `refused`, `duplicate`, `expired`, … */
  step: string;
  tool: string;
  /** The arguments as JSON, masked as the cards show them. */
  args: string;
  requester: string | null;
  chat: string | null;
  by: string | null;
  platform: string | null;
  decision: string | null;
  policy: string | null;
  detail: string | null;
}

const KEYS: ReadonlyArray<keyof ApprovalRecord> = [
  'at',
  'gate',
  'step',
  'tool',
  'args',
  'requester',
  'chat',
  'by',
  'platform',
  'decision',
  'policy',
  'detail',
];

const who = (actor: StoredActor | null | undefined): string | null =>
  actor ? (actor.operator ?? actor.displayName ?? `${actor.platform}:${actor.id}`) : null;

/**
 * The records of the questions asked since `since` (all when absent), optionally of one chat; the newest `limit`
 * questions when given. Ordered by when each question was asked (then its id), and its steps in the order they were
 * settled (a retried count's row takes its last round's place: compare-and-set.ts).
 */
export async function approvalRecords(
  db: Db,
  filter: { since?: Date; chat?: string; limit?: number; secrets?: readonly string[] } = {},
): Promise<ApprovalRecord[]> {
  const where: SQL[] = [];
  if (filter.since) where.push(gte(approvalGates.createdAt, filter.since));
  if (filter.chat) where.push(eq(approvalGates.originChat, filter.chat));
  let gates = await db
    .select()
    .from(approvalGates)
    .where(and(...where))
    .orderBy(asc(approvalGates.createdAt), asc(approvalGates.id));
  if (filter.limit !== undefined) gates = gates.slice(-filter.limit);
  if (gates.length === 0) return [];
  const steps = await db
    .select()
    .from(decisionAudit)
    .where(
      and(
        eq(decisionAudit.kind, 'gate'),
        inArray(
          decisionAudit.subjectId,
          gates.map((g) => g.id),
        ),
      ),
    )
    .orderBy(asc(decisionAudit.id));
  return gates.flatMap((gate) => {
    const common = {
      gate: gate.id,
      tool: gate.tool,
      args: JSON.stringify(maskSecrets(gate.args ?? {}, { secrets: filter.secrets ?? [], byName: false })),
      requester: who(gate.requester),
      chat: gate.originChat,
      policy: gate.policy?.name ?? null,
    };
    const own = steps.filter((s) => s.subjectId === gate.id);
    // A gate opened before the audit had its `requested` row is asked as its own row says.
    const asked: ApprovalRecord[] = own.some((s) => s.outcome === 'requested')
      ? []
      : [
          {
            ...common,
            at: gate.createdAt.toISOString(),
            step: 'requested',
            by: who(gate.requester),
            platform: gate.requester?.platform ?? null,
            decision: null,
            detail: gate.reason,
          },
        ];
    return [
      ...asked,
      ...own.map(
        (s): ApprovalRecord => ({
          ...common,
          at: s.at.toISOString(),
          step: s.outcome,
          by: who(s.actor),
          platform: s.platform,
          decision: s.decision,
          detail: s.detail === null ? null : maskText(s.detail, filter.secrets ?? [], { formats: true }),
        }),
      ),
    ];
  });
}

/** JSON Lines: one object per record, keys in a fixed order, a newline after each. */
export function toJsonLines(records: readonly ApprovalRecord[]): string {
  return records.map((r) => `${JSON.stringify(Object.fromEntries(KEYS.map((k) => [k, r[k]])))}\n`).join('');
}

/** CSV (RFC 4180): a header, then one line per record; every field quoted, quotes doubled, CRLF line ends. */
export function toCsv(records: readonly ApprovalRecord[]): string {
  const line = (cells: ReadonlyArray<string | null>) =>
    `${cells.map((c) => `"${(c ?? '').replaceAll('"', '""')}"`).join(',')}\r\n`;
  return line(KEYS) + records.map((r) => line(KEYS.map((k) => r[k]))).join('');
}

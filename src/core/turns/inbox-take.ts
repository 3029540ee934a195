// Taking an inbox row to run it (received or stale -> running, counting the attempt): one compare-and-set,
// run alone (Inbox.take, Inbox.claim) or inside the statement that lists a chat's rows, so the chat's next
// row is taken as it is listed (Inbox.unfinishedTakingOf; chat-lease-statements.ts with the chat's lease).
import { and, eq, getTableColumns, inArray, lte, or, sql, type SQL, type WithSubquery } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { type Db, inbox } from '../db/index.ts';
import type { InboxKey, InboxRow } from '../chat/index.ts';

/**
 * Inbox.take's compare-and-set (its doc comment says which rows it takes), with placeholders `platform`,
 * `eventId`, `owner` and `staleBefore` ({@link takeParams}); `onlyIf` narrows it further, so a chat's
 * listing can take its first row in the same statement (chat-lease-statements.ts).
 */
export function takeUpdate(db: Db, onlyIf?: SQL) {
  const runningTakeable = or(
    lte(inbox.updatedAt, sql.placeholder('staleBefore')),
    eq(inbox.owner, sql.placeholder('owner')),
  );
  const takeable = or(eq(inbox.state, 'received'), and(eq(inbox.state, 'running'), runningTakeable));
  const key = and(eq(inbox.platform, sql.placeholder('platform')), eq(inbox.eventId, sql.placeholder('eventId')));
  return db
    .update(inbox)
    .set(runningBy(sql.placeholder('owner')))
    .where(and(key, takeable, onlyIf))
    .returning();
}

/** The placeholders of {@link takeUpdate}. */
export function takeParams(key: InboxKey, owner: string, staleBefore: Date) {
  return {
    platform: key.platform,
    eventId: key.eventId,
    owner,
    staleBefore: inbox.updatedAt.mapToDriverValue(staleBefore),
  };
}

/**
 * A chat's unfinished rows (placeholder `chat`) in arrival order, each as `listed` (the statement's
 * snapshot), while the same statement takes the row {@link takeUpdate} names when it is the chat's first
 * unfinished one — and, given `lease` (a CTE that returns a row when the chat's lease was taken), only
 * then. The row as taken comes back as `taken` beside its listing; `held`: the lease was taken (always
 * true without one). `ahead`, given the CTE of the taken row, builds a CTE that does more with it and
 * returns a `thread_id` (the thread lease taken with it, chat-lease-statements.ts): that comes back as `ahead`.
 */
export function unfinishedTaking(db: Db, lease?: WithSubquery, ahead?: (taken: WithSubquery) => WithSubquery) {
  const held = lease ? sql<boolean>`exists (select 1 from ${lease})` : sql<boolean>`true`;
  const taken = db.$with('taken').as(takeUpdate(db, and(lease && held, firstUnfinishedOfItsChat())));
  const takenColumns = Object.fromEntries(
    Object.keys(getTableColumns(inbox)).map((name) => [name, taken[name as keyof typeof taken]]),
  ) as unknown as ReturnType<typeof getTableColumns<typeof inbox>>;
  const aheadLease = ahead?.(taken);
  const withs = [...(lease ? [lease] : []), taken, ...(aheadLease ? [aheadLease] : [])];
  return db
    .with(...withs)
    .select({
      listed: getTableColumns(inbox),
      taken: takenColumns,
      held: held.as('held'),
      ahead: (aheadLease
        ? sql<string | null>`(select thread_id from ${aheadLease})`
        : sql<string | null>`null::text`
      ).as('ahead'),
    })
    .from(inbox)
    .leftJoin(taken, eq(taken.seq, inbox.seq))
    .where(and(eq(inbox.chat, sql.placeholder('chat')), inArray(inbox.state, ['received', 'running'])))
    .orderBy(inbox.seq);
}

/**
 * The rows of {@link unfinishedTaking}: the listing, the row taken if any, whether the lease is held
 * (unknown with no row), and the thread of the lease taken ahead, if any.
 */
export function readUnfinishedTaking(
  rows: Array<{ listed: InboxRow; taken: InboxRow | null; held: boolean; ahead: string | null }>,
): { held: boolean | undefined; rows: InboxRow[]; taken?: InboxRow; ahead?: string } {
  const taken = rows.find((row) => row.taken !== null)?.taken ?? undefined;
  const ahead = rows[0]?.ahead ?? undefined;
  return { held: rows[0]?.held, rows: rows.map((row) => row.listed), ...(taken && { taken }), ...(ahead && { ahead }) };
}

/** The row is its chat's first unfinished one: none recorded before it is still received or running. */
function firstUnfinishedOfItsChat(): SQL {
  const earlier = alias(inbox, 'earlier');
  return sql`not exists (select 1 from ${inbox} as ${sql.identifier('earlier')} where ${earlier.chat} =
    ${inbox.chat} and ${inArray(earlier.state, ['received', 'running'])} and ${earlier.seq} < ${inbox.seq})`;
}

/** SET: `running`, owned by `owner` (a name, or the placeholder of one), counting the attempt. */
export function runningBy(owner: string | ReturnType<typeof sql.placeholder>) {
  return {
    state: 'running' as const,
    owner: owner as string,
    attempts: sql`${inbox.attempts} + 1`,
    updatedAt: sql`now()`,
    progressAt: sql`now()`,
  };
}

// How a row of the inbox ends (running → done | failed), in the statement that ends it: Inbox's own, or
// the chat's last listing (chat-lease-statements.ts), which ends the row its turn ran in the same statement.
import { and, eq, sql } from 'drizzle-orm';
import { type Db, inbox, type InboxState } from '../db/index.ts';
import { sentMarksParam, sentMarksUpdate, type SentReply } from '../outbox/index.ts';
import type { InboxKey } from '../chat/index.ts';

/**
 * How a row this process holds ends: running → done | failed, with the error of a failure, and the
 * replies its turn sent, to be recorded as sent with the row's end (sent-marks.ts).
 */
export interface RowEnd {
  key: InboxKey;
  state: Extract<InboxState, 'done' | 'failed'>;
  error?: string;
  sent?: readonly SentReply[];
}

/**
 * The statement that ends a row (placeholders `platform`, `eventId`, `state`, `owner`, `error`): UPDATE …
 * SET state, finished_at WHERE key AND state='running' AND owner RETURNING event_id. `markingSent`: with
 * a CTE first that records the replies in placeholder `sent` as sent.
 */
export function rowEndUpdate(db: Db, options: { markingSent?: boolean } = {}) {
  // Without an error the row keeps the one it has (a failed attempt's, for the record).
  const set = {
    state: sql`${sql.placeholder('state')}`,
    finishedAt: sql`now()`,
    updatedAt: sql`now()`,
    lastError: sql`coalesce(${sql.placeholder('error')}, ${inbox.lastError})`,
  } as never;
  const where = and(
    eq(inbox.platform, sql.placeholder('platform')),
    eq(inbox.eventId, sql.placeholder('eventId')),
    eq(inbox.state, 'running'),
    eq(inbox.owner, sql.placeholder('owner')),
  );
  const handle = options.markingSent ? db.with(db.$with('sent').as(sentMarksUpdate(db))) : db;
  return handle.update(inbox).set(set).where(where).returning({ eventId: inbox.eventId });
}

/**
 * {@link rowEndUpdate}'s parameters for `end`, written by `owner` (`sent`: for a statement that also records the turn's
 * replies).
 */
export function rowEndParams(end: RowEnd, owner: string) {
  return {
    platform: end.key.platform,
    eventId: end.key.eventId,
    state: end.state,
    owner,
    error: end.error === undefined ? null : end.error.slice(0, 2000),
    sent: sentMarksParam(end.sent),
  };
}

// A chat's posts (messages and cards) reach it in the order they were written (`seq`), whoever sends them
// and however many retries a rate limit costs: a post waits while an older post to the same destination
// is still to be delivered (`pending`, or `sending`). Before, a reply refused with a 429 went back to
// `pending` for the worker's retry while the chat's next replies were sent at once, overtaking it.
// Edits are not posts: they change a message in place and keep their own order (deliver.ts). Cards are
// not in this order either, neither waiting nor waited for: a question waiting for a person must not queue
// behind a rate-limited reply or a hundred other cards, and a card a killed process left `sending` (on
// PostgreSQL called "delivery unknown" only after 5 minutes) must not hold the chat's replies back.
import { and, eq, inArray, lt, sql } from 'drizzle-orm';
import { KazmaError } from '../errors.ts';
import { type Db, outbox } from '../db/index.ts';

/** An older post to the same chat is still to be delivered; the job retries later. */
export class OutboxNotNextError extends KazmaError {
  constructor(readonly id: string) {
    super('outbox_not_next', `outbox row ${id} waits for an older message or card to its chat`);
  }
}

/** The kind whose posts keep their chat's order, and the states of one still to be delivered. */
export const POSTS = ['message'] as const;
export const OPEN = ['pending', 'sending'] as const;

/** Whether a post older than `row` to its destination is still to be delivered. */
export async function olderPostOpen(db: Db, row: { destination: string; seq: number }): Promise<boolean> {
  const [older] = await db
    .select({ id: outbox.id })
    .from(outbox)
    .where(
      and(
        eq(outbox.destination, row.destination),
        inArray(outbox.kind, [...POSTS]),
        inArray(outbox.state, [...OPEN]),
        lt(outbox.seq, row.seq),
      ),
    )
    .limit(1);
  return older !== undefined;
}

/** The oldest post to `destination` still pending (the next to go once the one before it ended), if any. */
export async function nextPendingPost(db: Db, destination: string): Promise<string | undefined> {
  const [next] = await db
    .select({ id: outbox.id })
    .from(outbox)
    .where(and(eq(outbox.destination, destination), inArray(outbox.kind, [...POSTS]), eq(outbox.state, 'pending')))
    .orderBy(outbox.seq)
    .limit(1);
  return next?.id;
}

/**
 * For a reply's insert: 'pending' when a post to the destination (placeholder `destination`) is still to
 * be delivered — but the replies in placeholder `mine` (a JSON array of ids: sent by this turn, their
 * `sent` still to be recorded at its end) — else the value of placeholder `state`.
 */
export const REPLY_STATE = sql`(case when exists (
    select 1 from ${outbox} o where o.destination = ${sql.placeholder('destination')} and o.kind = 'message'
      and o.state in ('pending', 'sending')
      and o.id not in (select jsonb_array_elements_text(${sql.placeholder('mine')}::jsonb))
  ) then 'pending' else ${sql.placeholder('state')} end)`;

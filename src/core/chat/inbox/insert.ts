// Recording an inbound event: the first statement of every message (a refused one ends as it is written).
import { sql } from 'drizzle-orm';
import { builtOnce, type Db, inbox, type InboxState } from '../../db/index.ts';
import type { InboundEvent } from '../../surface/index.ts';

/** A placeholder where drizzle's types want the column's value type (encoded by the column on execute). */
const placed = (name: string) => sql.placeholder(name) as never;

/**
 * Statement: INSERT … ON CONFLICT (platform, event_id) DO NOTHING RETURNING. Output: true for the first
 * delivery, false for a redelivery. Invariant: of racing deliveries of one event exactly one gets true.
 */
export async function insertEvent(
  db: Db,
  { event, state, owner }: { event: InboundEvent; state: Extract<InboxState, 'received' | 'refused'>; owner: string },
): Promise<boolean> {
  // Built once per state: every message's first statement (a refused one ends as it is written).
  const statement = builtOnce(db, `inbox.insert.${state}`, (db) =>
    db
      .insert(inbox)
      .values({
        platform: placed('platform'),
        eventId: placed('eventId'),
        chat: placed('chat'),
        state,
        owner: placed('owner'),
        event: state === 'received' ? placed('event') : null,
        ...(state === 'refused' && { finishedAt: sql`now()` }),
      })
      .onConflictDoNothing({ target: [inbox.platform, inbox.eventId] })
      .returning({ eventId: inbox.eventId })
      .prepare(`inbox_insert_${state}`),
  );
  const rows = await statement.execute({
    platform: event.platform,
    eventId: event.eventId,
    chat: event.chat,
    owner,
    ...(state === 'received' && { event }),
  });
  return rows.length > 0;
}

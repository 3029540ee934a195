// Cards that belong to something (a gate, a question, a task's status): every card of one owner is an
// outbox row under `(owner_kind, owner_id)`, so an edit reaches every card of it, wherever and whenever
// it was posted.
import { sql } from 'drizzle-orm';
import type { Card } from '../surface/index.ts';
import { type Db, dialect, queryPrepared, outbox } from '../db/index.ts';
import { enqueueOutbox, type OutboxOwner } from './store.ts';

// One statement finds the cards and writes their edits (a winning decision's only other round trip). The
// ids are made by the database, as unguessable as outboxId's: an edit's id is never a button.
const EDIT_CARDS = dialect.sqlToQuery(sql`
  insert into ${outbox} (id, kind, destination, owner_kind, owner_id, target_id, payload, state)
  select 'edit_' || replace(gen_random_uuid()::text, '-', ''), 'edit', destination, owner_kind, owner_id, id,
    ${sql.placeholder('payload')}::jsonb, 'pending'
  from ${outbox} where owner_kind = ${sql.placeholder('kind')} and owner_id = ${sql.placeholder('id')} and kind = 'card'
  returning id`);

/**
 * Writes one card row per destination, owned by `owner`; pass a transaction as `db`. Returns the row ids to dispatch.
 */
export function postOwnedCards(
  db: Db,
  owner: OutboxOwner,
  card: Card,
  destinations: readonly string[],
): Promise<string[]> {
  return enqueueOutbox(
    db,
    destinations.map((destination) => ({ kind: 'card' as const, destination, payload: card, owner })),
  );
}

/** Writes an edit of every card of `owner` to `card`. Returns the row ids to dispatch. */
export async function editOwnedCards(db: Db, owner: OutboxOwner, card: Card): Promise<string[]> {
  const rows = await queryPrepared(db, EDIT_CARDS, { kind: owner.kind, id: owner.id, payload: JSON.stringify(card) });
  return rows.map((row) => row.id as string);
}

// Cards that belong to something (a gate, a question, a task's status): every card of one owner is an
// outbox row under `(owner_kind, owner_id)`, so an edit reaches every card of it, wherever and whenever
// it was posted.
import type { Card } from '../chat/types.ts';
import type { Db } from '../db/index.ts';
import { enqueueOutbox, outboxOfOwner, type OutboxOwner } from './store.ts';

/** Writes one card row per destination, owned by `owner`; pass a transaction as `db`. Returns the row ids to dispatch. */
export function postOwnedCards(db: Db, owner: OutboxOwner, card: Card, destinations: readonly string[]): Promise<string[]> {
  return enqueueOutbox(db, destinations.map((destination) => ({ kind: 'card' as const, destination, payload: card, owner })));
}

/** Writes an edit of every card of `owner` to `card`. Returns the row ids to dispatch. */
export async function editOwnedCards(db: Db, owner: OutboxOwner, card: Card): Promise<string[]> {
  const cards = (await outboxOfOwner(db, owner)).filter((row) => row.kind === 'card');
  return enqueueOutbox(db, cards.map((row) => ({ kind: 'edit' as const, destination: row.destination, targetId: row.id, owner, payload: card })));
}

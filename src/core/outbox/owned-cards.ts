// Cards that belong to something (a gate, a question, a task's status): every card of one owner is an
// outbox row under `(owner_kind, owner_id)`, so an edit reaches every card of it, wherever and whenever
// it was posted.
import { sql } from 'drizzle-orm';
import type { Card, MessageRef } from '../surface/index.ts';
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

// One statement: is the tapped message a recorded card of the owner? If not, does it name a card row whose
// send's answer was lost (`unknown`, or `pending` again after an attempt that threw)? A row `sending` is
// left alone: the attempt under way records its own message.
const PROVE_CARD = dialect.sqlToQuery(sql`
  with known as (
    select 1 from ${outbox}
    where owner_kind = ${sql.placeholder('kind')} and owner_id = ${sql.placeholder('id')} and kind = 'card'
      and message_ref->>'chat' = ${sql.placeholder('chat')} and message_ref->>'id' = ${sql.placeholder('ref')}
  ), recorded as (
    update ${outbox} set state = 'sent', message_ref = ${sql.placeholder('tapped')}::jsonb, sent_at = now(),
      last_error = null, updated_at = now()
    where owner_kind = ${sql.placeholder('kind')} and owner_id = ${sql.placeholder('id')} and kind = 'card'
      and destination = ${sql.placeholder('chat')} and attempts > 0 and state in ('unknown', 'pending')
      and not exists (select 1 from known)
    returning id
  )
  select (select count(*) from known)::int as known, (select count(*) from recorded)::int as recorded`);

/**
 * What a tap on `tapped`, a card of `owner`, proves. Input: the owner and the message the platform says was
 * tapped. Output: `known` when a card row already names that message; `recorded` when it names a card row
 * whose send's answer was lost (the row was `unknown`, or `pending` again after an attempt), now `sent` with
 * that message, so edits reach it and no retry posts it again; `copy` when no row names it (a second send of
 * a card whose first answer was lost): only its tapper's edit will reach it. Invariant: a row moves only to
 * `sent`, by compare-and-set, never from `sending` (that attempt records itself).
 */
export async function proveTappedCard(
  db: Db,
  owner: OutboxOwner,
  tapped: MessageRef,
): Promise<'known' | 'recorded' | 'copy'> {
  const [row] = await queryPrepared(db, PROVE_CARD, {
    kind: owner.kind,
    id: owner.id,
    chat: tapped.chat,
    ref: tapped.id,
    tapped: JSON.stringify({ chat: tapped.chat, id: tapped.id }),
  });
  if (Number(row?.known) > 0) return 'known';
  return Number(row?.recorded) > 0 ? 'recorded' : 'copy';
}

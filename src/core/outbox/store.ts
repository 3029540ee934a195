import { randomBytes } from 'node:crypto';
import { and, eq, inArray, lte, sql } from 'drizzle-orm';
import { type Db, outbox, type OutboxKind, type OutboxState } from '../db/index.ts';
import { isPermanentRefusal } from '../errors.ts';
import { ENDED_SEND } from './parts.ts';

export type OutboxRow = typeof outbox.$inferSelect;

/** Why a row is "delivery unknown". */
export const STOPPED_WHILE_SENDING = 'delivery unknown: the process stopped while sending';

/** What a caller asks to deliver; written in the caller's transaction so it exists iff its cause does. */
export interface OutboxItem {
  kind: OutboxKind;
  destination: string;
  payload: unknown;
  /** The question it belongs to (`{ kind: 'gate', id }`), so every card of it is found for edits. */
  owner?: OutboxOwner;
  /** For an edit: the outbox id of the card it edits. */
  targetId?: string;
}

/** A new, unguessable, button-safe id. */
export function outboxId(prefix: string): string {
  return `${prefix}_${randomBytes(9).toString('base64url')}`;
}

/** Who a delivery belongs to: a gate, a question, … */
export interface OutboxOwner {
  kind: string;
  id: string;
}

/** Inserts rows as `pending`; returns their ids (the delivery job ids). Pass a transaction as `db`. */
export async function enqueueOutbox(db: Db, items: OutboxItem[]): Promise<string[]> {
  if (items.length === 0) return [];
  const rows = items.map(({ owner, ...item }) => ({
    id: outboxId(item.kind),
    ...item,
    ...(owner && { ownerKind: owner.kind, ownerId: owner.id }),
    state: 'pending' as const,
  }));
  await db.insert(outbox).values(rows);
  return rows.map((r) => r.id);
}

/**
 * Moves one row from `from` to `to` by compare-and-set (the outbox's only state writer).
 * Output: the updated row, or undefined when the row was not in `from` (someone else has it).
 * Invariant: `pending → sending` happens at most once per attempt, so a row is never sent twice at once.
 */
export async function moveOutbox(
  db: Db,
  id: string,
  from: OutboxState,
  to: OutboxState,
  patch: Partial<Pick<OutboxRow, 'messageRef' | 'lastError' | 'sentAt'>> = {},
): Promise<OutboxRow | undefined> {
  const bump = from === 'pending' && to === 'sending' ? { attempts: sql`${outbox.attempts} + 1` } : {};
  const [row] = await db
    .update(outbox)
    .set({ ...patch, ...bump, state: to, updatedAt: sql`now()` })
    .where(and(eq(outbox.id, id), eq(outbox.state, from)))
    .returning();
  return row;
}

/**
 * A send of row `id` (`sending`) threw: the row goes back to `pending` for a retry, or — when the
 * platform refused it for good (blocked, gone, not allowed; errors.ts isPermanentRefusal) — to
 * `failed`, for an incident to say so, since no retry changes that. Returns where it went.
 */
export async function settleFailedSend(db: Db, id: string, error: unknown): Promise<'pending' | 'failed'> {
  const to = isPermanentRefusal(error) ? 'failed' : 'pending';
  await moveOutbox(db, id, 'sending', to, { lastError: error instanceof Error ? error.message : String(error) });
  return to;
}

export async function getOutbox(db: Db, id: string): Promise<OutboxRow | undefined> {
  const [row] = await db.select().from(outbox).where(eq(outbox.id, id));
  return row;
}

/** Every edit of one card (the outbox id of the card), oldest first. */
export async function editsOf(db: Db, targetId: string): Promise<OutboxRow[]> {
  return db
    .select()
    .from(outbox)
    .where(and(eq(outbox.kind, 'edit'), eq(outbox.targetId, targetId)))
    .orderBy(outbox.seq);
}

/** Every row of one owner (the cards of one question and their edits), oldest first. */
export async function outboxOfOwner(db: Db, owner: OutboxOwner): Promise<OutboxRow[]> {
  return db
    .select()
    .from(outbox)
    .where(and(eq(outbox.ownerKind, owner.kind), eq(outbox.ownerId, owner.id)))
    .orderBy(outbox.seq);
}

/**
 * At start and on every sweep: a row left in `sending` died mid-send, and platforms have no idempotency
 * keys, so it is marked `unknown` rather than re-sent — unless it is a message in several parts whose
 * row says which parts the platform took (parts.ts): with every part taken it is `sent`; with some, it
 * goes back to `pending` and its delivery goes on after them. Returns the ids `pending` (the resumed
 * among them), to be delivered now, and those called unknown.
 *
 * `sendingBefore`: a row last moved before then is presumed dead. Another live process may be sending
 * right now, so on a shared database that is "longer ago than any send takes"; the embedded database's
 * single process passes the moment it started — not "now": its platforms and workers start before this
 * runs, and a send of its own already under way must not be marked unknown.
 */
export async function recoverOutbox(
  db: Db,
  options: { sendingBefore: Date },
): Promise<{ pending: string[]; unknown: string[] }> {
  const ended = await db
    .update(outbox)
    .set({
      state: sql`case ${ENDED_SEND} when 'sent' then 'sent' when 'resumed' then 'pending' else 'unknown' end`,
      lastError: sql`case ${ENDED_SEND} when 'sent' then null
        when 'resumed' then 'resumed after a stop: the parts the platform took are not sent again'
        else ${STOPPED_WHILE_SENDING} end`,
      sentAt: sql`case ${ENDED_SEND} when 'sent' then now() end`,
      updatedAt: sql`now()`,
    })
    .where(and(eq(outbox.state, 'sending'), lte(outbox.updatedAt, options.sendingBefore)))
    .returning({ id: outbox.id, state: outbox.state });
  const pending = await db
    .select({ id: outbox.id })
    .from(outbox)
    .where(inArray(outbox.state, ['pending']))
    .orderBy(outbox.seq);
  return { pending: pending.map((r) => r.id), unknown: ended.filter((r) => r.state === 'unknown').map((r) => r.id) };
}

/**
 * Deletes the replies, messages and edits whose delivery ended (sent, superseded, failed, unknown) before
 * `before`; returns how many. A turn's replies are looked up by id only while its inbound event is open,
 * and an edit only while its card waits, so none is read again after that (`outbox.retention`, 7 days, is
 * also how long the inbox keeps finished events). Cards stay: a decision, or a tap long after it, edits
 * its card, and the edit needs the message the card became.
 */
export async function pruneOutbox(db: Db, before: Date): Promise<number> {
  const gone = await db
    .delete(outbox)
    .where(
      and(
        inArray(outbox.kind, ['message', 'edit']),
        inArray(outbox.state, ['sent', 'superseded', 'failed', 'unknown']),
        lte(outbox.updatedAt, before),
      ),
    )
    .returning({ id: outbox.id });
  return gone.length;
}

/** Ids of rows not yet delivered (pending or being sent), with their destinations. */
export async function openOutbox(db: Db): Promise<Array<{ id: string; destination: string }>> {
  return db
    .select({ id: outbox.id, destination: outbox.destination })
    .from(outbox)
    .where(inArray(outbox.state, ['pending', 'sending']));
}

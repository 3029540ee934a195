import type { Card, Message, MessageRef, SendProgress, ChatRef, SurfaceRegistry } from '../surface/index.ts';
import { KazmaError } from '../errors.ts';
import { systemClock, type Clock } from '../clock.ts';
import { onLiveConnection, type Db } from '../db/index.ts';
import { editsOf, getOutbox, moveOutbox, settleFailedSend, type OutboxRow } from './store.ts';
import { SendTakenOverError, sendProgress } from './parts.ts';
import { olderPostOpen, OutboxNotNextError } from './chat-order.ts';

/** The card an edit targets is not delivered yet, or another edit of it is being sent; the job retries later. */
export class EditTargetNotReadyError extends KazmaError {
  constructor(
    readonly id: string,
    why = 'is not delivered yet',
  ) {
    super('outbox_edit_not_ready', `the card for edit ${id} ${why}`);
  }
}

export type DeliveryOutcome = 'sent' | 'skipped' | 'not-ready' | 'failed';

/**
 * Delivers one outbox row through the attached surfaces, once:
 * claim `pending → sending` (a lost claim means someone else has it: skip) → send → record the
 * platform's message reference with `sending → sent`. A send that throws means the platform did not
 * take it: the row goes back to `pending` and the error is rethrown for the job's retry. A crash
 * between claim and record leaves `sending`, which recoverOutbox() turns into `unknown`.
 *
 * Edits of one card go out in the order they were written, whatever order their jobs run in (a retried
 * edit can run after a newer one): an edit with a newer edit of the same card is `superseded`, never
 * sent — checked again after the claim, so a newer edit written meanwhile still wins — and an edit
 * waits while an older edit of its card is being sent. `sent_at` is read from `clock` (default {@link systemClock}).
 */
export async function deliverOutbox(
  db: Db,
  surfaces: SurfaceRegistry,
  id: string,
  clock: Clock = systemClock,
): Promise<DeliveryOutcome> {
  const row = await getOutbox(db, id);
  if (row?.state !== 'pending') return 'skipped';
  let editTarget: MessageRef | undefined;
  if (row.kind === 'edit') {
    const target = row.targetId ? await getOutbox(db, row.targetId) : undefined;
    if (target?.state === 'pending' || target?.state === 'sending') throw new EditTargetNotReadyError(id);
    if (target?.state !== 'sent' || !target.messageRef) {
      // The card was never delivered (or its delivery is unknown): nothing to edit. Not a failure of its
      // own — the card's is the one incident, and the card, sent again, shows its newest edit.
      await moveOutbox(db, id, 'pending', 'superseded', {
        lastError: `card ${row.targetId} has no delivered message to edit; sent again, it shows its newest edit`,
      });
      return 'skipped';
    }
    editTarget = target.messageRef as MessageRef;
    const order = await editOrder(db, row);
    if (order === 'superseded') {
      await moveOutbox(db, id, 'pending', 'superseded', { lastError: SUPERSEDED });
      return 'skipped';
    }
    if (order === 'behind-a-send') throw new EditTargetNotReadyError(id, 'has an older edit being sent');
  }
  // A chat's posts go out in the order they were written, whatever a rate limit held back (chat-order.ts).
  // Only messages keep their chat's order; a card (a question waiting for a person) never waits.
  if (row.kind === 'message' && (await olderPostOpen(db, row))) throw new OutboxNotNextError(id);
  const claimed = await moveOutbox(db, id, 'pending', 'sending');
  if (!claimed) return 'skipped';
  if (row.kind === 'edit' && (await editOrder(db, row)) === 'superseded') {
    await moveOutbox(db, id, 'sending', 'superseded', { lastError: SUPERSEDED });
    return 'skipped';
  }
  let ref: MessageRef | undefined;
  try {
    ref = await send(db, surfaces, claimed, editTarget, sendProgress(db, claimed));
  } catch (error) {
    // A later attempt took the row over (it was presumed stopped): the row is that attempt's now.
    if (error instanceof SendTakenOverError) return 'skipped';
    // Refused for good: failed, not retried. Otherwise pending again, and the job's retry sends it.
    if ((await settleFailedSend(db, id, error)) === 'failed') return 'failed';
    throw error;
  }
  // It went out: a stale pooled connection must not leave it `sending` (later "delivery unknown").
  await onLiveConnection(() =>
    moveOutbox(db, id, 'sending', 'sent', { messageRef: ref ?? editTarget ?? null, sentAt: clock.now() }),
  );
  return 'sent';
}

const SUPERSEDED = 'a newer edit of the same card was written; this one is not sent';

/** Where an edit stands among its card's edits: a newer one exists, an older one is being sent, or it may go. */
async function editOrder(db: Db, edit: OutboxRow): Promise<'superseded' | 'behind-a-send' | 'next'> {
  const edits = await editsOf(db, edit.targetId!);
  const at = edits.findIndex((e) => e.id === edit.id);
  if (at < edits.length - 1) return 'superseded';
  return edits.some((e) => e.id !== edit.id && e.state === 'sending') ? 'behind-a-send' : 'next';
}

async function send(
  db: Db,
  surfaces: SurfaceRegistry,
  row: OutboxRow,
  editTarget: MessageRef | undefined,
  progress: SendProgress,
): Promise<MessageRef | undefined> {
  switch (row.kind) {
    case 'card':
      return surfaces.sendCard(row.destination as ChatRef, await newestCard(db, row), {
        key: row.id,
        again: row.attempts > 1,
      });
    case 'edit':
      await surfaces.editCard(editTarget!, row.payload as Card);
      return undefined;
    case 'message':
      return surfaces.send(row.destination as ChatRef, row.payload as Message, progress);
  }
}

/**
 * A card as it stands: its newest edit's, when edits were written before it went out (a decision taken
 * while its delivery waited, or was unknown until a Retry) — never a card with live buttons for a
 * question already decided.
 */
async function newestCard(db: Db, card: OutboxRow): Promise<Card> {
  const edits = await editsOf(db, card.id);
  return (edits.at(-1)?.payload ?? card.payload) as Card;
}

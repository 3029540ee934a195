// The messages a streamed answer was shown in (core/streaming's drafts), recorded once each — never per
// token — so a start after a crash finds the half-written ones and says they were interrupted. A draft is
// an outbox row: kind `message`, `sent`, owned by `('draft', <turn>)`, its reference in `message_ref`;
// pruned with the other sent messages (`outbox.retention`). A draft's first message is reserved before it is
// posted (`draft_<key>`, no reference yet: a crash between the post and its record leaves the key, under
// which it was posted), and given its reference once posted; a later part is recorded once posted. The row
// is `sent`, never `sending`, so it holds no reply of the chat behind it (chat-order.ts). It leaves `sent`
// (for `superseded`) once something took the message over: the turn's final answer, edited into it, the
// interrupted notice, or the end of the drive that showed it.
import { and, eq, sql } from 'drizzle-orm';
import { type Db, outbox } from '../db/index.ts';
import type { ChatRef, MessageRef } from '../surface/index.ts';

/** The owner kind of a draft's row. */
const DRAFT = 'draft';

/** A draft's row id: the key it was reserved under, else one per message. */
export const draftRowId = (ref: MessageRef): string =>
  ref.draft !== undefined ? reservedRowId(ref.draft) : `draft_${ref.chat}_${ref.id}`;
/** The row id of a draft reserved under `key` (also the delivery key its first message is posted under). */
export const reservedRowId = (key: string): string => `draft_${key}`;

/** A draft an earlier run left: its message, or only the key its first message was to be posted under. */
export interface LeftDraft {
  chat: ChatRef;
  ref?: MessageRef;
  /** The delivery key of a reserved draft with no reference recorded: maybe posted, maybe not. */
  key?: string;
}

export class DraftRecords {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** A draft of `turn` in `chat` is about to be posted under `key` ({@link reservedRowId}). */
  async reserve(turn: string, chat: ChatRef, key: string): Promise<string> {
    await this.#db
      .insert(outbox)
      .values({
        id: reservedRowId(key),
        kind: 'message',
        destination: chat,
        ownerKind: DRAFT,
        ownerId: turn,
        payload: { text: '' },
        state: 'sent',
        sentAt: sql`now()`,
      })
      .onConflictDoNothing({ target: outbox.id });
    return reservedRowId(key);
  }

  /** `ref` shows an answer of `turn` as it is written; written once per message (a second call changes nothing). */
  async posted(turn: string, ref: MessageRef): Promise<void> {
    if (ref.draft !== undefined) {
      await this.#db
        .update(outbox)
        .set({ messageRef: ref, updatedAt: sql`now()` })
        .where(and(eq(outbox.id, reservedRowId(ref.draft)), eq(outbox.state, 'sent')));
      return;
    }
    await this.#db
      .insert(outbox)
      .values({
        id: draftRowId(ref),
        kind: 'message',
        destination: ref.chat,
        ownerKind: DRAFT,
        ownerId: turn,
        payload: { text: '' },
        state: 'sent',
        messageRef: ref,
        sentAt: sql`now()`,
      })
      .onConflictDoNothing({ target: outbox.id });
  }

  /** The drafts of `turn` nothing took over: an earlier run of it stopped while they were half-written. */
  async left(turn: string): Promise<LeftDraft[]> {
    const rows = await this.#db
      .select({ id: outbox.id, chat: outbox.destination, ref: outbox.messageRef })
      .from(outbox)
      .where(and(eq(outbox.ownerKind, DRAFT), eq(outbox.ownerId, turn), eq(outbox.state, 'sent')))
      .orderBy(outbox.seq);
    return rows.map((row) =>
      row.ref ? { chat: row.chat as ChatRef, ref: row.ref as MessageRef } : { chat: row.chat as ChatRef, key: row.id },
    );
  }

  /** The draft is taken over (`why`): no later start touches it. */
  async ended(draft: LeftDraft, why: string): Promise<void> {
    if (draft.ref) return endDraft(this.#db, draft.ref, why);
    if (draft.key !== undefined) await endRow(this.#db, draft.key, why);
  }
}

/** Moves a draft's row out of `sent`; nothing when `ref` was never recorded (a preview, a quick answer). */
export async function endDraft(db: Db, ref: MessageRef, why: string): Promise<void> {
  // A preview is never recorded (no message to find after a crash): no statement to look for its row.
  if (ref.preview) return;
  await endRow(db, draftRowId(ref), why);
}

async function endRow(db: Db, id: string, why: string): Promise<void> {
  await db
    .update(outbox)
    .set({ state: 'superseded', lastError: why, updatedAt: sql`now()` })
    .where(and(eq(outbox.id, id), eq(outbox.state, 'sent'), eq(outbox.ownerKind, DRAFT)));
}

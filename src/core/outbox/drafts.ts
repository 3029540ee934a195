// The messages a streamed answer was shown in (core/streaming's drafts), recorded once each, when first
// posted — never per token — so a start after a crash finds the half-written ones and says they were
// interrupted. A draft is an outbox row: kind `message`, `sent` (the platform has it), owned by
// `('draft', <turn>)`, its reference in `message_ref`; pruned with the other sent messages
// (`outbox.retention`). Its row leaves `sent` (for `superseded`) once something took the message over: the
// turn's final answer, edited into it, or the interrupted notice.
import { and, eq, sql } from 'drizzle-orm';
import { type Db, outbox } from '../db/index.ts';
import type { MessageRef } from '../surface/index.ts';

/** The owner kind of a draft's row. */
const DRAFT = 'draft';

/** A draft's row id: one per message, whatever posted it. */
export const draftRowId = (ref: MessageRef): string => `draft_${ref.chat}_${ref.id}`;

export class DraftRecords {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** `ref` shows an answer of `turn` as it is written; written once per message (a second call changes nothing). */
  async posted(turn: string, ref: MessageRef): Promise<void> {
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
  async left(turn: string): Promise<MessageRef[]> {
    const rows = await this.#db
      .select({ ref: outbox.messageRef })
      .from(outbox)
      .where(and(eq(outbox.ownerKind, DRAFT), eq(outbox.ownerId, turn), eq(outbox.state, 'sent')))
      .orderBy(outbox.seq);
    return rows.map((row) => row.ref as MessageRef);
  }

  /** The message is taken over (`why`): no later start touches it. */
  async ended(ref: MessageRef, why: string): Promise<void> {
    await endDraft(this.#db, ref, why);
  }
}

/** Moves a draft's row out of `sent`; nothing when `ref` was never recorded (a preview, a quick answer). */
export async function endDraft(db: Db, ref: MessageRef, why: string): Promise<void> {
  await db
    .update(outbox)
    .set({ state: 'superseded', lastError: why, updatedAt: sql`now()` })
    .where(and(eq(outbox.id, draftRowId(ref)), eq(outbox.state, 'sent')));
}

// Replies a chat's turn sent, recorded as sent in the statement that ends the turn's inbox row, instead
// of one statement per reply. The reply's row was written `sending` before the send (write before you
// act); only its `sending → sent` waits for the turn's end. A crash in between leaves it `sending`, which
// the outbox recovery calls "delivery unknown" and never sends again, as after a crash between a send and
// its own mark.
import { and, eq, sql } from 'drizzle-orm';
import type { MessageRef } from '../surface/index.ts';
import { type Db, builtOnce, outbox } from '../db/index.ts';

/** A reply the platform took, still to be recorded as sent. */
export interface SentReply {
  /** Its outbox row (`sending`). */
  id: string;
  ref: MessageRef | undefined;
  sentAt: Date;
}

/**
 * Takes over recording a sent reply (true: the statement that ends the turn's inbox row writes it), or
 * declines (false: the outbox records it at once, as without one).
 */
export type SentHandOff = (sent: SentReply) => boolean;

/**
 * sending → sent for each reply in placeholder `sent` ({@link sentMarksParam}), with its reference and
 * send time; rows no longer `sending` (the recovery called them "delivery unknown") are left alone.
 * Returns the ids it moved. For a CTE of the statement that ends a row (Inbox.finish, ChatLeases' listing).
 */
export function sentMarksUpdate(db: Db) {
  const sent = sql`jsonb_to_recordset(${sql.placeholder('sent')}::jsonb)
    as sent(id text, ref jsonb, sent_at timestamptz)`;
  return db
    .update(outbox)
    .set({ state: 'sent', messageRef: sql`sent.ref`, sentAt: sql`sent.sent_at`, updatedAt: sql`now()` })
    .from(sent)
    .where(and(eq(outbox.id, sql`sent.id`), eq(outbox.state, 'sending')))
    .returning({ id: outbox.id });
}

/** The `sent` placeholder's value: a JSON array ('[]' for none, which moves nothing). */
export function sentMarksParam(sent: readonly SentReply[] = []): string {
  return JSON.stringify(sent.map((s) => ({ id: s.id, ref: s.ref ?? null, sent_at: s.sentAt.toISOString() })));
}

/** Records `sent` as sent in a statement of their own (built once); the ids it moved. */
export async function recordSent(db: Db, sent: readonly SentReply[]): Promise<string[]> {
  if (sent.length === 0) return [];
  const statement = builtOnce(db, 'outbox.recordSent', (handle) =>
    sentMarksUpdate(handle).prepare('outbox_record_sent'),
  );
  return (await statement.execute({ sent: sentMarksParam(sent) })).map((row) => row.id);
}

// A message in several parts: its row's message_ref keeps how many parts the platform took, and of how
// many, written after each part by the attempt that claimed the row. So a send cut short — a refused
// part, a stop, a kill -9 — goes on after the parts that went out instead of being "delivery unknown",
// and an attempt that another has taken over stops before its next part. A delivery made in steps with no
// key the platform knows (a Slack upload) is `staged` there the same way: where it will show is written
// before the step that shows it, and a later attempt asks the platform about it instead of "unknown".
import { and, eq, sql } from 'drizzle-orm';
import type { MessageRef, SendProgress } from '../surface/index.ts';
import { KazmaError } from '../errors.ts';
import { type Db, outbox } from '../db/index.ts';

/** A row's message_ref while a message in several parts (or in steps) is being sent. */
interface PartsRef extends MessageRef {
  delivered?: number;
  of?: number;
  /** A delivery in steps (SendProgress.stage) is under way there: a later attempt asks about it. */
  staged?: boolean;
}

/** The send of a row was taken over by a later attempt (after a stop): this one sends no further part. */
export class SendTakenOverError extends KazmaError {
  constructor(readonly id: string) {
    super('outbox_send_taken_over', `the send of ${id} was taken over by a later attempt; it sends no further part`);
  }
}

const ref = sql`${outbox.messageRef}`;
/**
 * How a `sending` row whose sender is gone ends: 'sent' (every part of a message in several was taken),
 * 'resumed' (some were: the rest is owed), else 'unknown' (nothing says what the platform took).
 */
export const ENDED_SEND = sql`(case
  when (${ref}->>'of')::int > 1 and (${ref}->>'delivered')::int >= (${ref}->>'of')::int then 'sent'
  when (${ref}->>'delivered')::int >= 1 then 'resumed'
  when (${ref}->>'staged')::boolean then 'resumed'
  else 'unknown' end)`;

/** What {@link ENDED_SEND} says of a row read into memory. */
export function endedSend(row: { messageRef: unknown }): 'sent' | 'resumed' | 'unknown' {
  const progress = row.messageRef as PartsRef | null;
  if (progress?.staged) return 'resumed';
  if (!progress?.delivered) return 'unknown';
  return progress.of !== undefined && progress.of > 1 && progress.delivered >= progress.of ? 'sent' : 'resumed';
}

/** The first part's reference of a row's message_ref (the reference the row ends with). */
export function firstPart(row: { messageRef: unknown }): MessageRef | undefined {
  const progress = row.messageRef as PartsRef | null;
  return progress ? { chat: progress.chat, id: progress.id } : undefined;
}

/**
 * What the attempts at a message row so far delivered, and how attempt number `attempts` (the row's
 * `attempts` once it claimed the row) records its own progress: only while the row is `sending` under
 * that attempt — when a later attempt has taken the row over, partSent rejects with SendTakenOverError.
 */
export function sendProgress(db: Db, row: { id: string; messageRef: unknown; attempts: number }): SendProgress {
  const progress = row.messageRef as PartsRef | null;
  return {
    key: row.id,
    again: row.attempts > 1,
    delivered: progress?.delivered ?? 0,
    ...(progress?.delivered && { first: { chat: progress.chat, id: progress.id } }),
    ...(progress?.staged && { staged: { chat: progress.chat, id: progress.id } }),
    partSent: (delivered, first, of) => record(db, row, { ...first, delivered, of }),
    stage: (ref) => record(db, row, { chat: ref.chat, id: ref.id, staged: true }),
  };
}

/** Writes an attempt's progress on its row, only while the row is `sending` under that attempt. */
async function record(db: Db, row: { id: string; attempts: number }, progress: PartsRef): Promise<void> {
  const moved = await db
    .update(outbox)
    .set({ messageRef: progress, updatedAt: sql`now()` })
    .where(and(eq(outbox.id, row.id), eq(outbox.state, 'sending'), eq(outbox.attempts, row.attempts)))
    .returning({ id: outbox.id });
  if (moved.length === 0) throw new SendTakenOverError(row.id);
}

/**
 * Takes over the send of row `id`, found `sending` under attempt `attempts` whose sender is gone (a turn
 * taken up again after its process stopped): `attempts + 1` by compare-and-set, so the old attempt, if it
 * still runs, stops before its next part. Returns the row, or undefined when someone else moved it.
 */
export async function takeOverSend(db: Db, id: string, attempts: number) {
  const [row] = await db
    .update(outbox)
    .set({ attempts: sql`${outbox.attempts} + 1`, updatedAt: sql`now()` })
    .where(and(eq(outbox.id, id), eq(outbox.state, 'sending'), eq(outbox.attempts, attempts)))
    .returning();
  return row;
}

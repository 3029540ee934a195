// Writing a note, under the provenance ladder and in time. The ladder: what the person stated > what the
// model inferred > what a tool or a page said. A note about the same subject from a source at least as
// strong supersedes the current ones; from a weaker source it is kept beside them as a conflict (marked,
// shown with both), never over them. Time: a note holds when it became true (`valid_from`, as stated)
// apart from when it was written; one written later about an older time never overwrites a newer one —
// it is kept as history, behind the current note.
import { randomBytes } from 'node:crypto';
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Clock } from '../clock.ts';
import { type Db, type MemorySource, schema } from '../db/index.ts';

import { realArray, type Embedding } from './similarity.ts';
import { formsIn, subjectKey, textHash } from './words.ts';

const { memories } = schema;

/** When a note became true: as stated, else when it was written. */
const VALID_SINCE = sql<string>`coalesce(${memories.validFrom}, ${memories.createdAt})`;

/** Lower is stronger. */
const RANK: Record<MemorySource, number> = { stated: 0, inferred: 1, tool: 2 };

/** A note to write. */
export interface NewMemory {
  owner: string;
  text: string;
  source: MemorySource;
  /** What the note is about ("exam date"): notes about one subject replace each other by the ladder. */
  subject?: string;
  /** When the fact became true, as stated; absent: now (when it is written). */
  validFrom?: Date;
  embedding?: Embedding;
}

/**
 * What writing did: `stored` (new, `superseded` lists what it replaced), `conflict` (kept beside a note
 * from a stronger source, `conflictsWith`), `duplicate` (the same words were already remembered: `id` is
 * that note), `forgotten` (the person had these words forgotten; only their saying it again brings it back),
 * `older` (true from an earlier time than the current note about the subject, `newer`: kept as history).
 */
export interface RememberOutcome {
  id: string;
  outcome: 'stored' | 'conflict' | 'duplicate' | 'forgotten' | 'older';
  superseded: string[];
  conflictsWith?: string;
  newer?: string;
}

/** Writes `note` in one transaction (see {@link RememberOutcome}). */
export async function rememberNote(db: Db, clock: Clock, note: NewMemory): Promise<RememberOutcome> {
  const hash = textHash(note.text);
  const subject = subjectKey(note.subject);
  return db.transaction(async (tx) => {
    const same = await tx
      .select({ id: memories.id, source: memories.source, forgottenAt: memories.forgottenAt })
      .from(memories)
      .where(and(eq(memories.owner, note.owner), eq(memories.textHash, hash), isNull(memories.supersededBy)));
    const forgotten = same.find((row) => row.forgottenAt !== null);
    if (forgotten && note.source !== 'stated') return { id: forgotten.id, outcome: 'forgotten', superseded: [] };
    const existing = same.find((row) => row.forgottenAt === null);
    if (existing) {
      if (RANK[note.source] < RANK[existing.source]) {
        await tx.update(memories).set({ source: note.source }).where(eq(memories.id, existing.id));
      }
      return { id: existing.id, outcome: 'duplicate', superseded: [] };
    }
    const current = subject
      ? await tx
          .select({ id: memories.id, source: memories.source, since: VALID_SINCE })
          .from(memories)
          .where(
            and(
              eq(memories.owner, note.owner),
              eq(memories.subject, subject),
              isNull(memories.supersededBy),
              isNull(memories.forgottenAt),
            ),
          )
      : [];
    const stronger = current
      .filter((row) => RANK[row.source] < RANK[note.source])
      .sort((a, b) => RANK[a.source] - RANK[b.source])[0];
    const now = clock.now();
    const since = (note.validFrom ?? now).getTime();
    // Of the notes it would replace, one true since later than this one: this one is history behind it.
    const newer = stronger ? undefined : current.find((row) => new Date(row.since).getTime() > since);
    const id = `mem_${randomBytes(6).toString('hex')}`;
    await tx.insert(memories).values({
      id,
      owner: note.owner,
      text: note.text,
      textHash: hash,
      terms: sql`to_tsvector('simple', ${[...formsIn(note.text)].join(' ')})`,
      subject,
      source: note.source,
      createdAt: now,
      ...(note.validFrom && { validFrom: note.validFrom }),
      ...(stronger && { conflictsWith: stronger.id }),
      ...(newer && { supersededBy: newer.id }),
      ...(note.embedding && {
        embedding: sql`${realArray(note.embedding.vector)}::real[]`,
        embeddingModel: note.embedding.model,
      }),
    });
    if (stronger) return { id, outcome: 'conflict', superseded: [], conflictsWith: stronger.id };
    if (newer) return { id, outcome: 'older', superseded: [], newer: newer.id };
    const superseded = current.map((row) => row.id);
    if (superseded.length > 0)
      await tx.update(memories).set({ supersededBy: id }).where(inArray(memories.id, superseded));
    return { id, outcome: 'stored', superseded };
  });
}

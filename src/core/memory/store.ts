import { and, desc, eq, inArray, isNull, or, type SQL, sql } from 'drizzle-orm';
import type { Clock } from '../clock.ts';
import { type Db, type MemorySource, schema } from '../db/index.ts';

import type { ForgetJournal } from './journal.ts';
import { rememberNote, type NewMemory, type RememberOutcome } from './remember.ts';
import { type Embedding, type SimilarityKind, similarityKind, vectorSearch } from './similarity.ts';
import { enableIterativeScan, ensureVectorIndex, storedLengths } from './vector-index.ts';
import { notesSharingWords, textArray } from './shared-words.ts';
import { contentWords } from './words.ts';

const { memories } = schema;

/** A note as recall and the tools see it. */
export interface MemoryNote {
  id: string;
  /** `person:…`, `user:…` or `chat:…` (service.ts ownersOf). */
  owner: string;
  text: string;
  subject: string | null;
  source: MemorySource;
  createdAt: Date;
  /** When it became true, as stated; null: when it was written. */
  validFrom: Date | null;
  /** The stronger note it disagrees with, if any. */
  conflictsWith: string | null;
}

/** A note found for a query: its cosine similarity (null without embeddings) and its place by similarity. */
export interface Candidate extends MemoryNote {
  similarity: number | null;
}

/** How many notes each half of a search brings back: the similarity ranks recall's background needs (4–15) and more. */
const PER_SEARCH = 24;

/**
 * A forgotten note: its words (the text, and so `search`; its word forms, `terms`) and vector cleared; its hash
 * stays, so the words are not brought back.
 */
const TOMBSTONE = (at: Date) => ({ text: '', terms: null, embedding: null, embeddingModel: null, forgottenAt: at });

const NOTE_COLUMNS = {
  id: memories.id,
  owner: memories.owner,
  text: memories.text,
  subject: memories.subject,
  source: memories.source,
  createdAt: memories.createdAt,
  validFrom: memories.validFrom,
  conflictsWith: memories.conflictsWith,
};

/**
 * The `memories` table: notes per owner, found by full-text search (the `simple` configuration) and by
 * embedding similarity (pgvector or exact, {@link vectorSearch}). Only current notes are found: not
 * forgotten, not superseded.
 */
export class MemoryStore {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly journal: ForgetJournal | undefined;
  private kind: Promise<SimilarityKind> | undefined;
  /** The vector lengths known to have their HNSW index (vector-index.ts), with pgvector. */
  private readonly indexed = new Set<number>();

  constructor(deps: { db: Db; clock: Clock; journal?: ForgetJournal }) {
    this.db = deps.db;
    this.clock = deps.clock;
    this.journal = deps.journal;
  }

  /** Writes a note under the provenance ladder (remember.ts); the first of a new vector length gets its index. */
  async remember(note: NewMemory): Promise<RememberOutcome> {
    const outcome = await rememberNote(this.db, this.clock, note);
    const length = note.embedding?.vector.length;
    if (length && !this.indexed.has(length) && (await this.similarityKind()) === 'pgvector') {
      await this.indexFor(length);
    }
    return outcome;
  }

  /**
   * At start, with pgvector: an HNSW index for every vector length stored, and scans that go on until
   * the owner's notes fill the search (vector-index.ts). Without pgvector nothing: search is exact.
   */
  async prepareSearch(building?: (index: { length: number; notes: number }) => void): Promise<void> {
    if ((await this.similarityKind()) !== 'pgvector') return;
    await enableIterativeScan(this.db);
    for (const length of await storedLengths(this.db))
      await this.indexFor(length, building && ((notes) => building({ length, notes })));
  }

  /**
   * Forgets current notes of `owners` (on `db`: a command's journalled transaction): each is written to
   * the forget journal first (journal.ts), then its words and vector are cleared and the row stays as a
   * tombstone. Returns how many were forgotten (another owner's note, or one already forgotten, is not).
   */
  async forget(input: { owners: readonly string[]; ids: readonly string[] }, db: Db = this.db): Promise<number> {
    if (input.ids.length === 0) return 0;
    const where = and(
      inArray(memories.id, [...input.ids]),
      inArray(memories.owner, [...input.owners]),
      isNull(memories.forgottenAt),
    );
    const at = this.clock.now();
    const notes = await db
      .select({ id: memories.id, owner: memories.owner, hash: memories.textHash })
      .from(memories)
      .where(where);
    await this.journal?.append(notes.map((n) => ({ ...n, at: at.toISOString() })));
    const rows = await db.update(memories).set(TOMBSTONE(at)).where(where).returning({ id: memories.id });
    return rows.length;
  }

  /**
   * Applies the forget journal again: every journalled note, and any note of its owner with the same
   * words (imported again under another id), is a tombstone. What a restored backup brought back is
   * forgotten again; run at start. Returns how many notes it forgot.
   */
  async replayForgets(): Promise<number> {
    const entries = (await this.journal?.entries()) ?? [];
    let forgot = 0;
    for (const e of entries) {
      const same = or(eq(memories.id, e.id), and(eq(memories.owner, e.owner), eq(memories.textHash, e.hash)));
      const rows = await this.db
        .update(memories)
        .set(TOMBSTONE(this.clock.now()))
        .where(and(same, isNull(memories.forgottenAt)))
        .returning({ id: memories.id });
      forgot += rows.length;
    }
    return forgot;
  }

  /** The current note `id` of `owners`, if it is one. */
  async find(owners: readonly string[], id: string): Promise<MemoryNote | undefined> {
    const [row] = await this.db
      .select(NOTE_COLUMNS)
      .from(memories)
      .where(and(eq(memories.id, id), this.current(owners)));
    return row;
  }

  /** True when `owners` have a current note. */
  async hasNotes(owners: readonly string[]): Promise<boolean> {
    const rows = await this.db.select({ id: memories.id }).from(memories).where(this.current(owners)).limit(1);
    return rows.length > 0;
  }

  /** The newest current notes of `owners`. */
  recent(owners: readonly string[], limit: number): Promise<MemoryNote[]> {
    return this.db
      .select(NOTE_COLUMNS)
      .from(memories)
      .where(this.current(owners))
      .orderBy(desc(memories.seq))
      .limit(limit);
  }

  /** The current notes of `owners` holding every content word of `words` (full text), newest first. */
  withWords(owners: readonly string[], words: string, limit = 20): Promise<MemoryNote[]> {
    const held = contentWords(words);
    if (held.length === 0) return Promise.resolve([]);
    const query = sql`websearch_to_tsquery('simple', ${held.join(' ')})`;
    return this.db
      .select(NOTE_COLUMNS)
      .from(memories)
      .where(and(this.current(owners), sql`${memories.search} @@ ${query}`))
      .orderBy(desc(memories.seq))
      .limit(limit);
  }

  /**
   * The notes of `owners` that share a content word with `query` (full text), and — given the query's
   * embedding — the most similar ones, most similar first (then the text matches without a vector).
   */
  async candidates(input: { owners: readonly string[]; query: string; embedding?: Embedding }): Promise<Candidate[]> {
    const { owners, embedding } = input;
    const search = embedding ? vectorSearch(await this.similarityKind(), embedding) : undefined;
    const similarity = search?.similarity ?? sql<null>`null::float8`;
    const columns = { ...NOTE_COLUMNS, similarity: sql<number | null>`${similarity}`.as('similarity') };
    // The two halves are independent reads: on PostgreSQL they run at once, on two connections.
    const [nearest, matching] = await Promise.all([
      search
        ? this.db
            .select(columns)
            .from(memories)
            .where(and(this.current(owners), search.comparable))
            .orderBy(search.nearestFirst)
            .limit(PER_SEARCH)
        : [],
      this.withSharedWords(owners, input.query, columns),
    ]);
    const found = new Map<string, Candidate>();
    for (const row of [...nearest, ...matching]) if (!found.has(row.id)) found.set(row.id, row);
    return [...found.values()].map((c) => ({ ...c, similarity: c.similarity === null ? null : Number(c.similarity) }));
  }

  /** The notes of `owners` sharing a content word with `query`, the best PER_SEARCH (shared-words.ts). */
  private async withSharedWords(
    owners: readonly string[],
    query: string,
    columns: typeof NOTE_COLUMNS & { similarity: SQL.Aliased<number | null> },
  ) {
    const ids = await notesSharingWords(this.db, { owners, query, limit: PER_SEARCH });
    if (ids.length === 0) return [];
    // Only these notes' vectors are compared with the query's: the exact cosine is the costly part of a read.
    // Still current: one forgotten or superseded since it was found is not brought back.
    const rows = await this.db
      .select(columns)
      .from(memories)
      .where(and(sql`${memories.id} = any(${textArray(ids)}::text[])`, this.current(owners)));
    const place = new Map(ids.map((id, i) => [id, i]));
    return rows.sort((a, b) => place.get(a.id)! - place.get(b.id)!);
  }

  private async indexFor(length: number, building?: (notes: number) => void): Promise<void> {
    try {
      await ensureVectorIndex(this.db, length, building);
    } catch {
      // Another process made it at the same moment, or it cannot be made here: the search is still right
      // without it (pgvector then compares every note of the length).
    }
    this.indexed.add(length);
  }

  /** pgvector or exact, asked of the database once. */
  similarityKind(): Promise<SimilarityKind> {
    this.kind ??= similarityKind(this.db);
    return this.kind;
  }

  private current(owners: readonly string[]) {
    return and(inArray(memories.owner, [...owners]), isNull(memories.forgottenAt), isNull(memories.supersededBy));
  }
}

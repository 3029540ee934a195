// Cosine similarity of a stored embedding with the query's, as SQL. Where the database has pgvector,
// `embedding::vector(d) <=> query` in an HNSW index per dimension (vector-index.ts) finds the nearest
// notes without reading every row; without it, the exact sum over both arrays is computed for every
// embedded note of the owner (a sequential read of the owner's rows). HNSW is approximate: it can leave
// out a note that is near in meaning. The full-text half of recall (shared-words.ts) is exact for the
// words that pick notes out — a GIN index over the words and their forms — so a note holding a word few of
// the owner's notes hold is always a candidate, whichever way similarity is computed (docs/performance.md
// "Memory recall").
import { type SQL, sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../db/index.ts';

/** A vector and the model that made it: only vectors of the same model and length are compared. */
export interface Embedding {
  model: string;
  vector: readonly number[];
}

/** How similarity is computed on this database. */
export type SimilarityKind = 'pgvector' | 'exact';

/** `pgvector` when the `vector` extension is installed in this database (the migrations create it when they can). */
export async function similarityKind(db: Db): Promise<SimilarityKind> {
  const result = await db.execute(sql`select 1 as found from pg_extension where extname = 'vector'`);
  return rowsOf(result).length > 0 ? 'pgvector' : 'exact';
}

/** An array literal PostgreSQL reads as `real[]` (drizzle would spread a JS array into a list of parameters). */
export function realArray(vector: readonly number[]): string {
  return `{${vector.map((v) => (Number.isFinite(v) ? v : 0)).join(',')}}`;
}

/** How the most similar notes are found: the row's similarity, what rows qualify, and the order. */
export interface VectorSearch {
  /** The row's cosine similarity with the query, null when its vector is another model's or length. */
  similarity: SQL<number | null>;
  /** The rows whose vector is compared: the query's model and length. */
  comparable: SQL;
  /**
   * Most similar first (ties: newest first, without pgvector); with pgvector the distance alone, so the
   * planner can walk the HNSW index.
   */
  nearestFirst: SQL;
}

/**
 * The SQL of a similarity search for `query`. The length is written into the statement, not bound: an
 * index on `embedding::vector(d)` for rows `where cardinality(embedding) = d` is used only when the query
 * names the same expression and predicate with that constant.
 */
export function vectorSearch(kind: SimilarityKind, query: Embedding): VectorSearch {
  const length = sql.raw(String(Math.trunc(query.vector.length)));
  const q = sql`${realArray(query.vector)}::real[]`;
  const comparable = sql`"embedding_model" = ${query.model} and cardinality("embedding") = ${length}`;
  if (kind === 'pgvector') {
    const distance = sql`("embedding"::vector(${length}) <=> ${q}::vector(${length}))`;
    const similarity = sql<number | null>`(case when ${comparable} then (1 - ${distance})::float8 end)`;
    return { similarity, comparable, nearestFirst: sql`${distance} asc` };
  }
  const cosine = sql`(select sum(a * b) / nullif(sqrt(sum(a * a)) * sqrt(sum(b * b)), 0)
    from unnest("embedding", ${q}) as t(a, b))`;
  const similarity = sql<number | null>`(case when ${comparable} then (${cosine})::float8 end)`;
  return { similarity, comparable, nearestFirst: sql`similarity desc nulls last, "seq" desc` };
}

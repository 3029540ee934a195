// Cosine similarity of a stored embedding with the query's, as SQL: pgvector's operator where the server
// has the extension, else the exact sum over both arrays. Either way every embedded note of the owner is
// compared (a sequential read of the owner's rows): no approximate or partial index can leave a match out.
import { type SQL, sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../db/index.ts';

/** A vector and the model that made it: only vectors of the same model and length are compared. */
export interface Embedding {
  model: string;
  vector: readonly number[];
}

/** How similarity is computed on this database. */
export type SimilarityKind = 'pgvector' | 'exact';

/** `pgvector` when the `vector` extension is installed in this database (the migration creates it when it can). */
export async function similarityKind(db: Db): Promise<SimilarityKind> {
  const result = await db.execute(sql`select 1 as found from pg_extension where extname = 'vector'`);
  return rowsOf(result).length > 0 ? 'pgvector' : 'exact';
}

/** An array literal PostgreSQL reads as `real[]` (drizzle would spread a JS array into a list of parameters). */
export function realArray(vector: readonly number[]): string {
  return `{${vector.map((v) => (Number.isFinite(v) ? v : 0)).join(',')}}`;
}

/** The similarity of the row's `embedding` with `query`, null when the row's vector is another model's. */
export function similarityOf(kind: SimilarityKind, query: Embedding): SQL<number | null> {
  const q = sql`${realArray(query.vector)}::real[]`;
  const same = sql`"embedding_model" = ${query.model} and cardinality("embedding") = ${query.vector.length}`;
  const cosine =
    kind === 'pgvector'
      ? sql`1 - ("embedding"::vector <=> ${q}::vector)`
      : sql`(select sum(a * b) / nullif(sqrt(sum(a * a)) * sqrt(sum(b * b)), 0)
          from unnest("embedding", ${q}) as t(a, b))`;
  return sql<number | null>`(case when ${same} then (${cosine})::float8 end)`;
}

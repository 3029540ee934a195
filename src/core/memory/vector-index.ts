// The HNSW indexes of memory's embeddings where the database has pgvector: one per vector length in use
// (`memories_embedding_hnsw_<d>`, over `embedding::vector(d)` for the rows of that length), because an
// HNSW index needs one dimension and the length depends on the configured embeddings model. They are made
// in code, not by a migration: the same migrations run on a PostgreSQL without pgvector, and the lengths
// are known only once notes are embedded. At start for every length stored (store.ts prepareSearch), and
// when a note of a new length is written. Lengths pgvector cannot index (over 2,000) are searched without one.
import { sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../db/index.ts';

/** pgvector's largest indexable `vector` length. */
const MAX_INDEXED_LENGTH = 2_000;

/**
 * Creates the index for vectors of `length` unless it exists. `building` is told first, with how many notes it
 * covers, when the index is missing: a first start after an upgrade builds it over every stored note, which
 * takes minutes at 100,000 (and the start waits for it: PGlite has one connection, which it would hold anyway).
 */
export async function ensureVectorIndex(db: Db, length: number, building?: (notes: number) => void): Promise<void> {
  const d = Math.trunc(length);
  if (d < 1 || d > MAX_INDEXED_LENGTH) return;
  const name = sql.raw(`memories_embedding_hnsw_${d}`);
  const dims = sql.raw(String(d));
  if (building) {
    const [missing] = rowsOf<{ notes: number }>(
      await db.execute(
        sql`select count(*)::int as notes from memories where cardinality("embedding") = ${dims}
          and to_regclass(${`memories_embedding_hnsw_${d}`}) is null`,
      ),
    );
    if (missing && Number(missing.notes) > 0) building(Number(missing.notes));
  }
  await db.execute(
    sql`create index if not exists ${name} on memories using hnsw (("embedding"::vector(${dims})) vector_cosine_ops)
      where cardinality("embedding") = ${dims}`,
  );
}

/** The vector lengths notes are stored with. */
export async function storedLengths(db: Db): Promise<number[]> {
  const rows = rowsOf<{ length: number }>(
    await db.execute(
      sql`select distinct cardinality("embedding") as length from memories where "embedding" is not null`,
    ),
  );
  return rows.map((r) => Number(r.length));
}

/**
 * Lets an HNSW scan go on past its first `ef_search` neighbours until the query's other conditions (the
 * owner, not forgotten) have filled its LIMIT (pgvector 0.8 iterative scans): for this session, and for
 * the database's later sessions where Kazma may alter it. An older pgvector has no such setting, and a
 * role that does not own the database cannot alter it: either way search goes on as pgvector's default
 * (a scan of `ef_search` neighbours), and the full-text half still finds every note sharing a word.
 */
export async function enableIterativeScan(db: Db): Promise<void> {
  try {
    await db.execute(sql`set hnsw.iterative_scan = strict_order`);
    await db.execute(sql`do $$ begin
      execute format('alter database %I set hnsw.iterative_scan = strict_order', current_database());
    end $$`);
  } catch {
    // As above: pgvector's default scan.
  }
}

// The batched saver's statements (batched-saver.ts): a checkpoint with its blobs in one statement, a step's
// writes in one, and the fetch of delta bases. Blobs ride in one binary parameter (see packed).

/** Special write channels LangGraph stores at fixed negative indexes (an upsert: the latest wins). */
export const SPECIAL_WRITE_INDEX: Record<string, number> = {
  __error__: -1,
  __scheduled__: -2,
  __interrupt__: -3,
  __resume__: -4,
};

/**
 * Blobs travel as ONE bytea parameter, sent as binary, with each blob's offset and length beside it
 * (length -1: no blob). A bytea[] parameter went as text — every byte spelled as two hex digits inside an
 * array literal, built by the driver and parsed back by the server (on PGlite, in this process) — which at
 * a full context window cost more than the rest of the write.
 */
export function packed(blobs: (Uint8Array | undefined)[]): { bytes: Buffer; at: number[]; length: number[] } {
  const at: number[] = [];
  const length: number[] = [];
  let offset = 0;
  for (const blob of blobs) {
    at.push(offset);
    length.push(blob ? blob.byteLength : -1);
    offset += blob?.byteLength ?? 0;
  }
  return { bytes: Buffer.concat(blobs.filter((blob): blob is Uint8Array => blob !== undefined)), at, length };
}

/** SQL for one blob of a {@link packed} parameter, in a row with `at` and `length`. */
const sliceOf = (parameter: string, row: string) =>
  `case when ${row}.length < 0 then null else substring(${parameter}::bytea from ${row}.at + 1 for ${row}.length) end`;

/** The saver's SQL for the tables in `schema`. */
export function batchedStatements(schema: string) {
  const table = (name: string) => `"${schema}".${name}`;
  const fetchBases =
    `select version, type, blob from ${table('checkpoint_blobs')} where thread_id = $1 and ` +
    `checkpoint_ns = $2 and channel = $3 and version = any($4::text[])`;
  const put = `WITH blobs AS (
  INSERT INTO ${table('checkpoint_blobs')} (thread_id, checkpoint_ns, channel, version, type, blob)
  SELECT $1, $2, b.channel, b.version, b.type, ${sliceOf('$6', 'b')} FROM unnest($3::text[], $4::text[], $5::text[],
    $11::int[], $12::int[]) AS b(channel, version, type, at, length)
  ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO NOTHING
)
INSERT INTO ${table('checkpoints')} (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint,
  metadata)
VALUES ($1, $2, $7, $8, $9, $10)
ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET checkpoint = EXCLUDED.checkpoint, metadata =
  EXCLUDED.metadata`;
  const writes = `INSERT INTO ${table('checkpoint_writes')} (thread_id, checkpoint_ns, checkpoint_id, task_id, idx,
    channel, type, blob)
SELECT $1, $2, $3, $4, w.idx, w.channel, w.type, ${sliceOf('$8', 'w')} FROM unnest($5::int[], $6::text[],
  $7::text[], $9::int[], $10::int[]) AS w(idx, channel, type, at, length)
ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)`;
  const insertWrites = `${writes} DO NOTHING`;
  const upsertWrites = `${writes} DO UPDATE SET channel = EXCLUDED.channel, type = EXCLUDED.type, blob = EXCLUDED.blob`;
  return { fetchBases, put, insertWrites, upsertWrites };
}

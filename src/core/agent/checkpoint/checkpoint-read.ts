// The read of one checkpoint with its channel values and pending writes, in one statement whose blobs
// come back as rows of plain bytea. PostgresSaver's own read aggregates them into a two-dimensional
// bytea[] that node-postgres parses character by character (postgres-array): at a full context window
// that parse was the largest single cost of a turn, and it grew with the thread. A plain bytea column is
// parsed from hex in one native call.
//
// A channel value whose version the reader already holds (channel-values.ts) comes back without its blob:
// the database does not detoast it, nothing is sent, and nothing is revived.
//
// Each channel value is looked up by its whole key (a LATERAL with LIMIT 1, which the planner does not
// flatten into a join). As a join, a planner without statistics (PGlite never analyses) hashed every blob
// the thread ever wrote — ~3,000 rows at turn 500, 10× the read of a new chat's — so the read grew with
// the thread's history, not with the checkpoint it reads.

/** One row of {@link checkpointReadSql}: part 0 is the checkpoint, 1 a channel value, 2 a pending write. */
export interface CheckpointReadRow {
  part: number;
  checkpoint_id: string | null;
  parent_checkpoint_id: string | null;
  checkpoint: ({ v: number; channel_versions?: Record<string, unknown> } & Record<string, unknown>) | null;
  metadata: unknown;
  task_id: string | null;
  channel: string | null;
  type: string | null;
  /** A channel value's version (part 1). */
  version: string | null;
  /** Part 1: the reader named this channel and version as already held, so `blob` is null. */
  known: boolean;
  blob: Buffer | null;
}

/** How a reader names a channel value it already holds, in the statement's $4. */
export const knownKey = (channel: string, version: string) => `${channel}\t${version}`;

/**
 * The statement: $1 thread, $2 namespace, $3 checkpoint id or null for the latest, $4 the channel values
 * the reader holds ({@link knownKey}; their blobs are left out). Rows: the checkpoint
 * (part 0), its channel values (part 1), its pending writes in (task, idx) order (part 2), nothing when
 * there is no such checkpoint — the same rows PostgresSaver's SELECT_SQL aggregates.
 */
export function checkpointReadSql(schema: string): string {
  const table = (name: string) => `"${schema}".${name}`;
  return `with cp as (
  select thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata from
    ${table('checkpoints')}
  where thread_id = $1 and checkpoint_ns = $2 and ($3::text is null or checkpoint_id = $3::text)
  order by checkpoint_id desc limit 1
)
select 0 as part, cp.checkpoint_id, cp.parent_checkpoint_id, cp.checkpoint, cp.metadata, null::text as task_id,
  null::text as channel, null::text as type, null::text as version, false as known, null::bytea as blob, 0 as idx
    from cp
union all
select 1, null, null, null, null, null, bl.channel, bl.type, bl.version, k.known, case when k.known then null else
  bl.blob end, 0
from cp cross join jsonb_each_text(cp.checkpoint -> 'channel_versions') v
cross join lateral (
  select b.channel, b.type, b.version, b.blob from ${table('checkpoint_blobs')} b
  where b.thread_id = cp.thread_id and b.checkpoint_ns = cp.checkpoint_ns and b.channel = v.key and b.version = v.value
  limit 1
) bl
cross join lateral (select coalesce(bl.channel || chr(9) || bl.version = any($4::text[]), false) as known) k
union all
select 2, null, null, null, null, cw.task_id, cw.channel, cw.type, null, false, cw.blob, cw.idx
from cp join ${table('checkpoint_writes')} cw on cw.thread_id = cp.thread_id and cw.checkpoint_ns = cp.checkpoint_ns
  and cw.checkpoint_id = cp.checkpoint_id
order by part, task_id, idx`;
}

const utf8 = (text: string | null) => Buffer.from(text ?? '', 'utf8');

/**
 * The rows as PostgresSaver's loaders take them: [channel, type, blob] and [task, channel, type, blob], as
 * bytes. Channel values the reader holds are left out: `held` names their channels.
 */
export function loaderInputs(rows: CheckpointReadRow[]): {
  channelValues: Uint8Array[][];
  pendingWrites: Uint8Array[][];
  held: string[];
} {
  const blob = (row: CheckpointReadRow) => row.blob ?? Buffer.alloc(0);
  const values = rows.filter((row) => row.part === 1);
  return {
    held: values.filter((row) => row.known).map((row) => row.channel!),
    channelValues: values.filter((row) => !row.known).map((row) => [utf8(row.channel), utf8(row.type), blob(row)]),
    pendingWrites: rows
      .filter((row) => row.part === 2)
      .map((row) => [utf8(row.task_id), utf8(row.channel), utf8(row.type), blob(row)]),
  };
}

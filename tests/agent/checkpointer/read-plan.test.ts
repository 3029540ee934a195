// The checkpoint read must cost what the checkpoint holds, not what the thread ever wrote. As a join, the
// blobs were matched by hashing every blob of the thread (PGlite has no statistics, so its planner expects
// one row): the read of a 500-turn chat touched ~3,000 blob rows and took 10× a new chat's. The plan is
// read with EXPLAIN ANALYZE, so the test counts rows, not milliseconds.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  createCheckpointer,
  CHECKPOINTER_SCHEMA,
  type Checkpointer,
} from '../../../src/core/agent/checkpoint/checkpointer.ts';
import { checkpointReadSql } from '../../../src/core/agent/checkpoint/checkpoint-read.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import { appendGraph } from './graphs.ts';

interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

/** Rows every scan of `relation` in the plan produced, over all its loops. */
function rowsScanned(node: PlanNode, relation: string): number {
  const own = node['Relation Name'] === relation ? (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 1) : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsScanned(child, relation), 0);
}

describeEachBackend('the checkpoint read', (db) => {
  let saver: Checkpointer;
  beforeAll(async () => {
    saver = await createCheckpointer(db());
  });
  afterAll(async () => {
    await saver.close();
  });

  it('touches only the blobs of the checkpoint it reads, however long the thread', async () => {
    const thread_id = 'telegram:42#0';
    const graph = appendGraph(saver.saver, 'turn');
    for (let i = 0; i < 60; i++)
      await graph.invoke(
        { messages: [{ role: 'user', content: `message ${i}` }] },
        { configurable: { thread_id }, durability: 'sync' },
      );
    const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
    const read = checkpointReadSql(CHECKPOINTER_SCHEMA)
      .replaceAll('$1', literal(thread_id))
      .replaceAll('$2', literal(''))
      .replaceAll('$3::text', 'null::text')
      .replaceAll('$4::text[]', `'{}'::text[]`);
    const result: unknown = await db().db.execute(sql.raw(`explain (analyze, format json) ${read}`));
    const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Array<
      Record<string, unknown>
    >;
    const plan = (rows[0]!['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0]!.Plan;

    const { blobs, channels } = (await selectRows(db, thread_id))[0]!;
    expect(blobs).toBeGreaterThan(100); // the thread's history is long
    expect(rowsScanned(plan, 'checkpoint_blobs')).toBeLessThanOrEqual(channels);
  });
});

/** How many blobs the thread wrote, and how many channels its latest checkpoint names. */
async function selectRows(
  db: () => { db: { execute: (q: ReturnType<typeof sql>) => Promise<unknown> } },
  thread: string,
) {
  const result: unknown = await db().db.execute(sql`
    select (select count(*)::int from langgraph.checkpoint_blobs where thread_id = ${thread}) as blobs,
           (select count(*)::int from jsonb_object_keys((select checkpoint -> 'channel_versions' from langgraph.checkpoints
             where thread_id = ${thread} and checkpoint_ns = '' order by checkpoint_id desc limit 1))) as channels`);
  return (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Array<{
    blobs: number;
    channels: number;
  }>;
}

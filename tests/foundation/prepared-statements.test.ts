// On PostgreSQL every statement drizzle builds runs prepared (src/core/db/prepared-by-default.ts): parsed
// once per connection, then one round trip per run, instead of describe-then-execute on every call. The
// server lists a connection's prepared statements in pg_prepared_statements; an unprepared statement never
// appears there. The checkpointer (node-postgres) names its four statements for the same reason, on PGlite
// too, where every checkpointer's pool feeds one session (drizzle's side there: pglite-prepared.test.ts).
import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createCheckpointer } from '../../src/core/agent/checkpoint/checkpointer.ts';
import { openDatabase, type Database } from '../../src/core/db/index.ts';
import { inbox } from '../../src/core/db/schema/chat.ts';
import { createPgDatabase, freshDatabase } from '../helpers/databases.ts';
import { appendGraph } from '../agent/checkpointer/graphs.ts';

let created: Awaited<ReturnType<typeof createPgDatabase>>;
let database: Database;
beforeAll(async () => {
  created = await createPgDatabase();
  database = await openDatabase({ url: created.url, poolSize: 2 });
  await database.db.execute(sql`create table inbox (platform text, event_id text, chat text)`);
});
afterAll(async () => {
  await database.close();
  await created.drop();
});

const prepared = async (run: (db: Database['db']) => Promise<unknown>) => {
  const rows = (await run(database.db)) as Array<{ statement: string }>;
  return rows.map((row) => row.statement);
};

it('a statement with parameters is prepared on its connection, inside a transaction too', async () => {
  const seen = await database.db.transaction(async (tx) => {
    await tx.select({ eventId: inbox.eventId }).from(inbox).where(eq(inbox.chat, 'telegram:1'));
    return (await tx.execute(sql`select statement from pg_prepared_statements`)) as unknown as Array<{
      statement: string;
    }>;
  });
  expect(seen.map((row) => row.statement).some((text) => text.includes(`from "inbox" where "inbox"."chat" = $1`))).toBe(
    true,
  );
});

it('outside a transaction too: the pooled connections keep what they ran prepared', async () => {
  for (let i = 0; i < 10; i++)
    await database.db
      .update(inbox)
      .set({ chat: 'x' })
      .where(eq(inbox.eventId, String(i)));
  const lists = await Promise.all(
    Array.from({ length: 10 }, () => prepared((db) => db.execute(sql`select statement from pg_prepared_statements`))),
  );
  expect(lists.flat().some((text) => text.startsWith('update "inbox" set "chat" = $1'))).toBe(true);
});

it('the checkpointer reads and writes checkpoints through named statements, prepared once per connection', async () => {
  const fresh = await freshDatabase('postgres');
  const checkpointer = await createCheckpointer(fresh, { poolSize: 1 });
  try {
    const thread_id = randomUUID();
    await appendGraph(checkpointer.saver, 'a').invoke(
      { messages: [{ role: 'user', content: 'one' }] },
      { configurable: { thread_id } },
    );
    await appendGraph(checkpointer.saver, 'a').invoke(
      { messages: [{ role: 'user', content: 'two' }] },
      { configurable: { thread_id } },
    );
    // The pool's one connection: what it has prepared.
    const pool = (
      checkpointer.saver as unknown as { pool: { query(text: string): Promise<{ rows: Array<{ name: string }> }> } }
    ).pool;
    const names = (await pool.query('select name from pg_prepared_statements')).rows.map((row) => row.name);
    expect(names).toEqual(expect.arrayContaining(['kazma_langgraph_read', 'kazma_langgraph_put']));
  } finally {
    await checkpointer.close();
    await fresh.dispose();
  }
});

it('on PGlite too, each checkpointer under names of its own: two on one session neither collide nor share', async () => {
  const fresh = await freshDatabase('pglite');
  const [first, second] = [await createCheckpointer(fresh), await createCheckpointer(fresh)];
  try {
    for (const checkpointer of [first, second, first, second]) {
      const thread_id = randomUUID();
      await appendGraph(checkpointer.saver, 'a').invoke(
        { messages: [{ role: 'user', content: 'one' }] },
        { configurable: { thread_id } },
      );
      const read = await appendGraph(checkpointer.saver, 'a').invoke(
        { messages: [{ role: 'user', content: 'two' }] },
        { configurable: { thread_id } },
      );
      expect(read.messages.map((m) => m.content)).toEqual(['one', 'a #1', 'two', 'a #3']);
    }
    const names = (
      await fresh.pglite!.query<{ name: string }>(
        `select name from pg_prepared_statements where name like 'kazma_langgraph_read%'`,
      )
    ).rows.map((row) => row.name);
    expect(names).toHaveLength(2);
  } finally {
    await first.close();
    await second.close();
    await fresh.dispose();
  }
});

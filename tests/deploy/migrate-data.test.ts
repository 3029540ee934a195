// `kazma migrate-data`: a Kazma that ran on its embedded database (the built CLI, a real data_dir) is moved
// to an empty PostgreSQL database — every row of every data table arrives equal (conversations and their
// checkpoints, an approval, a reminder, a memory, the audit) — and Kazma started on PostgreSQL goes on with
// the same conversation. A target that holds rows is refused before anything is written.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATA_SCHEMAS, type Database, openDatabase, rowsOf } from '../../src/core/db/index.ts';
import { contentText } from '../fakes/llm-wire.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { writeConfig } from '../agent/helpers/spawn.ts';
import { createPgDatabase, seedPgliteDataDir } from '../helpers/databases.ts';
import { KazmaProcess, runKazma } from '../helpers/kazma-process.ts';

let dir: string;
let llm: FakeLlm;
let target: { url: string; drop: () => Promise<void> };
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kazma-move-'));
  llm = await startFakeLlm();
  target = await createPgDatabase();
});
afterAll(async () => {
  await llm.close();
  await target.drop();
  rmSync(dir, { recursive: true, force: true });
});

const config = (extra: Record<string, unknown> = {}) =>
  writeConfig(dir, `kazma-${Object.keys(extra).length}.yaml`, {
    data_dir: join(dir, 'data'),
    http: { port: 0 },
    tools: { workspace: join(dir, 'workspace') },
    model: { name: 'fake-model', base_url: llm.baseURL },
    access: { operators: [{ name: 'maya', console: 'maya' }] },
    time: { zone: 'Asia/Kuwait' },
    ...extra,
  });

async function chat(path: string, lines: string[]): Promise<string> {
  const kazma = new KazmaProcess(['chat', '--config', path]);
  kazma.child.stdin!.end(`${lines.join('\n')}\n`);
  const { code } = await kazma.exited;
  expect(code, kazma.stderr).toBe(0);
  return kazma.stdout;
}

/** Every data table's rows, each as its JSON text, sorted: two databases holding the same data are equal. */
async function contents(database: Database): Promise<Record<string, string[]>> {
  const schemas = sql.join(
    DATA_SCHEMAS.map((s) => sql`${s}`),
    sql`, `,
  );
  const tables = rowsOf(
    await database.db.execute(sql`select table_schema || '.' || table_name as name from information_schema.tables
      where table_type = 'BASE TABLE' and table_schema in (${schemas}) and table_name <> 'checkpoint_migrations'`),
  ).map((r) => String(r.name));
  const all: Record<string, string[]> = {};
  for (const table of tables) {
    const rows = rowsOf(await database.db.execute(sql.raw(`select row_to_json(t)::text as row from ${table} t`)));
    all[table] = rows.map((r) => String(r.row)).sort();
  }
  return all;
}

describe('kazma migrate-data', () => {
  it('copies every row to PostgreSQL, and Kazma goes on there with the same conversation', async () => {
    const onPglite = config();
    await seedPgliteDataDir(join(dir, 'data'));
    llm.script(
      { toolCalls: [{ name: 'memory_store', args: { text: 'My exam is on 14 January' } }] },
      { text: 'Noted.' },
      { toolCalls: [{ name: 'write_file', args: { path: 'a.txt', content: 'مرحبا 👋' } }] },
      { text: 'Written.' },
    );
    const out = await chat(onPglite, [
      'remember: my exam is on 14 January',
      'write a file',
      'o',
      '/remind in 2 hours water the plants 🌱',
    ]);
    expect(out).toContain('Written.');

    const moved = await runKazma(['migrate-data', '--config', onPglite, '--to', target.url]);
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stdout).toMatch(/^done: \d+ rows in \d+ tables copied to postgres:\/\//m);
    expect(moved.stdout).not.toMatch(/postgres:\/\/[^@\s]*:[^@\s]+@/); // no password printed

    const source = await openDatabase({ dataDir: join(dir, 'data') });
    const copy = await openDatabase({ url: target.url, poolSize: 2 });
    try {
      const [before, after] = [await contents(source), await contents(copy)];
      expect(after).toEqual(before);
      for (const table of ['public.memories', 'public.approval_gates', 'public.schedules', 'langgraph.checkpoints'])
        expect(before[table]?.length, table).toBeGreaterThan(0);
    } finally {
      await source.close();
      await copy.close();
    }

    // On PostgreSQL now: the same thread goes on (the model is sent the earlier turns), the memory is there.
    llm.requests.length = 0;
    const onPostgres = config({ database: { url: target.url } });
    const again = await chat(onPostgres, ['what did I ask you to remember?', '/memory']);
    const sent = llm.requests[0]!.messages!.map((m) => contentText(m.content)).join('\n');
    expect(sent).toContain('remember: my exam is on 14 January');
    expect(again).toContain('My exam is on 14 January');
  });

  it('refuses a target that already holds rows, before writing anything', async () => {
    const moved = await runKazma(['migrate-data', '--config', config(), '--to', target.url]);
    expect(moved.code).toBe(1);
    expect(moved.stderr + moved.stdout).toMatch(/already has rows in \S+: use an empty database/);
  });
});

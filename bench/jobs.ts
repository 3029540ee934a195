// Background-task throughput, against a baseline measured in the same run on the same Redis:
//  (a) N bare BullMQ no-op jobs (one worker, concurrency 16): jobs/s;
//  (b) N no-op background tasks through the full path (task row, task.run job, the agent's turn on its
//      own thread against a local fake model, the row settled), run by `kazma start` in this process
//      (jobs.concurrency.swarm 16): tasks/s and the ratio to (a);
//  (c) the same with the tasks left to separate `kazma worker` processes: one worker, then two, and
//      the scaling between them (this machine's cores bound it).
//
//   node --import tsx bench/jobs.ts [--tasks 2000]
//
// Prints figures, asserts nothing (tests/bench/ runs it with few tasks to see that it still does). Needs PostgreSQL (KAZMA_TEST_PG_URL) and
// Redis on 127.0.0.1:6379, like the tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Queue, Worker } from 'bullmq';
import { inArray, sql } from 'drizzle-orm';
import { queuePrefix } from '../src/assemble.ts';
import { parseConfig } from '../src/core/config/index.ts';
import { migrateDatabase, openDatabase, type Database } from '../src/core/db/index.ts';
import { tasks } from '../src/core/db/schema/tasks.ts';
import { startFakeLlm } from '../tests/fakes/llm-server.ts';
import { startAssembled } from '../tests/helpers/assembled.ts';
import { createPgDatabase } from '../tests/helpers/databases.ts';
import { TEST_REDIS } from '../tests/helpers/outbox.ts';
import { STANDARD_STEPS } from '../tests/helpers/pglite-template.ts';

const { values } = parseArgs({ options: { tasks: { type: 'string', default: '2000' } } });
const N = Number(values.tasks);
const ROOT = join(import.meta.dirname, '..');
const requester = { platform: 'console', id: 'bench' };
const rate = (n: number, ms: number) => Math.round((n / ms) * 1000);

async function bareBullmq(): Promise<number> {
  const opts = { connection: TEST_REDIS, prefix: `bench-bare-${randomBytes(4).toString('hex')}` };
  const queue = new Queue('bare', opts);
  let done = 0;
  const all = new Promise<void>((resolve) => {
    const worker = new Worker('bare', async () => {}, { ...opts, concurrency: 16 });
    worker.on('completed', () => {
      if (++done === N) void worker.close().then(resolve);
    });
  });
  const started = performance.now();
  await queue.addBulk(
    Array.from({ length: N }, (_, i) => ({ name: 'noop', data: { i }, opts: { removeOnComplete: true } })),
  );
  await all;
  const ms = performance.now() - started;
  await queue.obliterate({ force: true });
  await queue.close();
  return ms;
}

async function freshPostgres(): Promise<{ database: Database; url: string; drop: () => Promise<void> }> {
  const created = await createPgDatabase();
  const database = await openDatabase({ url: created.url, poolSize: 20 });
  await migrateDatabase(database, [...STANDARD_STEPS]);
  return {
    database,
    url: created.url,
    drop: async () => {
      await database.close();
      await created.drop();
    },
  };
}

/** Starts N tasks and waits until every one has ended; returns the wall time. */
async function runTasks(start: (goal: string) => Promise<unknown>, database: Database): Promise<number> {
  const began = performance.now();
  for (let i = 0; i < N; i++) await start(`noop ${i}`);
  for (;;) {
    const [row] = await database.db
      .select({ n: sql<number>`count(*)::int` })
      .from(tasks)
      .where(inArray(tasks.state, ['done', 'failed']));
    if ((row?.n ?? 0) >= N) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const ms = performance.now() - began;
  await database.db.delete(tasks);
  return ms;
}

const llm = await startFakeLlm();
const baseConfig = (url: string, dir: string) => ({
  database: { url },
  redis: { url: 'redis://127.0.0.1:6379' },
  data_dir: join(dir, 'data'),
  http: { port: 0 },
  tools: { workspace: dir },
  model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 0 },
  log: { level: 'silent' },
});

console.log(`bench/jobs: ${N} no-op jobs or tasks per figure`);
const bareMs = await bareBullmq();
console.log(`(a) bare BullMQ no-op jobs:            ${rate(N, bareMs)} jobs/s (${Math.round(bareMs)} ms)`);

{
  const pg = await freshPostgres();
  const dir = mkdtempSync(join(tmpdir(), 'bench-jobs-'));
  const config = { ...baseConfig(pg.url, dir), jobs: { concurrency: { swarm: 16 } } };
  const k = await startAssembled(config, { database: { ...pg.database, dispose: async () => {} } });
  const ms = await runTasks((goal) => k.kazma.core.tasks.start({ goal, requester }), pg.database);
  console.log(
    `(b) full-path tasks, in-process:       ${rate(N, ms)} tasks/s (${Math.round(ms)} ms) — ${(bareMs / ms).toFixed(3)}× the bare rate`,
  );
  await k.close();
  await pg.drop();
}

{
  const pg = await freshPostgres();
  const dir = mkdtempSync(join(tmpdir(), 'bench-workers-'));
  const config = baseConfig(pg.url, dir);
  const path = join(dir, 'worker.yaml');
  writeFileSync(path, JSON.stringify({ ...config, log: { level: 'info' }, jobs: { concurrency: { swarm: 16 } } }));
  const prefix = queuePrefix(parseConfig(JSON.stringify(config), { env: {}, baseDir: dir }), { kind: 'postgres' });
  const chat = await startAssembled(
    { ...config, jobs: { concurrency: { swarm: 0 } } },
    { database: { ...pg.database, dispose: async () => {} }, queuePrefix: prefix },
  );
  const workers: ChildProcess[] = [];
  const addWorker = async () => {
    const child = spawn(process.execPath, [join(ROOT, 'bin/kazma.js'), 'worker', '--config', path], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    workers.push(child);
    await new Promise<void>((resolve, reject) => {
      let out = '';
      const read = (chunk: Buffer) => {
        out += chunk;
        if (!out.includes('kazma worker started')) return;
        child.stdout!.off('data', read).resume(); // keep draining its output, without keeping it
        resolve();
      };
      child.stdout!.on('data', read);
      child.once('exit', (code) => reject(new Error(`kazma worker exited with ${code}`)));
    });
  };
  const per: number[] = [];
  for (const count of [1, 2]) {
    while (workers.length < count) await addWorker();
    const ms = await runTasks((goal) => chat.kazma.core.tasks.start({ goal, requester }), pg.database);
    per.push(rate(N, ms));
    console.log(
      `(c) full-path tasks, ${count} kazma worker${count > 1 ? 's' : ' '}:    ${per.at(-1)} tasks/s (${Math.round(ms)} ms)`,
    );
  }
  console.log(`    scaling from one worker to two:     ${(per[1]! / per[0]!).toFixed(2)}×`);
  for (const child of workers) child.kill('SIGTERM');
  await chat.close();
  await pg.drop();
}
await llm.close();
process.exit(0);

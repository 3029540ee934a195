// Footprint and start time of a real `kazma start` with three adapters (Telegram, Discord, Slack) enabled
// against the local fakes, on embedded PGlite and on PostgreSQL, on a fresh and on an existing data dir
// (database), as compiled JavaScript (dist/) and through tsx. Per run it prints:
//   start → /readyz   spawn to the first /readyz 200 (database and Redis answer; HTTP listens)
//   start → started   spawn to the "kazma started" log line (every adapter connected, recovery done)
//   idle CPU, wake-ups  on-CPU ms and times put on a CPU, per second, all threads, over the last 2 s of
//                     --settle: what an idle process costs (its timers and sockets waking it). Right
//                     after a start its own work lingers (JIT, GC): --settle 30000 reads it past that
//   RSS settled       RSS after the process sat idle for --settle ms
//   RSS after GC      RSS after two full GCs (the child runs with --expose-gc; a probe preloaded with
//                     --import collects and reports on SIGUSR2), the figure an idle process can keep
// Medians over --runs, then ratios against baselines from the same run: a bare node HTTP server answering
// /readyz (the floor), and each compiled row against its tsx row.
//
//   node --import tsx bench/footprint.ts [--runs 3] [--settle 3000] [--only pglite|postgres] [--runtime compiled|tsx|before]
//                                        [--before DIR]   (another checkout to compare with, run through tsx)
//                                        [--node-arg=--max-semi-space-size=1 …]   (node options for Kazma's processes)
//
// Prints figures, asserts nothing (tests/bench/ runs it with --runs 1 to see that it still does). Needs Redis on 127.0.0.1:6379 and
// PostgreSQL (KAZMA_TEST_PG_URL, default postgres://postgres@127.0.0.1:5432/postgres), like the tests.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startFakeDiscord } from '../tests/fakes/discord/fake-discord.ts';
import { startFakeLlm } from '../tests/fakes/llm-server.ts';
import { startFakeSlack } from '../tests/fakes/slack/index.ts';
import { startFakeTelegram } from '../tests/fakes/telegram/index.ts';
import { createPgDatabase } from '../tests/helpers/databases.ts';
import { freePort } from '../tests/helpers/free-port.ts';
import { measureStart } from './footprint/measure.ts';
import { printTable, type Row } from './footprint/table.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    settle: { type: 'string', default: '3000' },
    only: { type: 'string' },
    runtime: { type: 'string' },
    before: { type: 'string' },
    'node-arg': { type: 'string', multiple: true, default: [] },
  },
});
const runs = Number(values.runs);
const settleMs = Number(values.settle);
if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs must be a positive integer');
const ROOT = join(import.meta.dirname, '..');
const databases = (['pglite', 'postgres'] as const).filter((d) => !values.only || d === values.only);

/** How a row's process is started: from which checkout, with which node arguments before `start`. */
interface Runtime {
  name: string;
  cwd: string;
  entry: string[];
}
const runtimes: Runtime[] = [
  { name: 'compiled', cwd: ROOT, entry: ['dist/cli/index.js'] },
  { name: 'tsx', cwd: ROOT, entry: ['--import', 'tsx', 'src/cli/index.ts'] },
  // --before DIR: another checkout (e.g. `git archive <commit>` with node_modules linked), run through tsx
  // as `npm start` ran it, measured in this same run so the comparison shares the machine's load.
  ...(values.before ? [{ name: 'before', cwd: values.before, entry: ['--import', 'tsx', 'src/cli/index.ts'] }] : []),
].filter((r) => !values.runtime || r.name === values.runtime);

if (runtimes.some((r) => r.name === 'compiled')) {
  // The compiled rows run dist/ as `npm start` would: built now if any source changed since the last build.
  execFileSync(process.execPath, [join(ROOT, 'bin/build.js'), '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
}

const [telegram, discord, slack, llm] = await Promise.all([
  startFakeTelegram(),
  startFakeDiscord(),
  startFakeSlack(),
  startFakeLlm(),
]);
const scratch = mkdtempSync(join(tmpdir(), 'kazma-footprint-'));
const rows: Row[] = [];
const rowFor = (database: string, data: string, runtime: string): Row => {
  let row = rows.find((r) => r.database === database && r.data === data && r.runtime === runtime);
  if (!row) rows.push((row = { database, data, runtime, samples: [] }));
  return row;
};
try {
  console.log(
    `footprint: ${runs} run(s) per row, idle settle ${settleMs} ms; three adapters against local fakes; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  for (let i = 0; i < runs; i++)
    rowFor('—', '—', 'bare node http').samples.push(
      await measureStart({ command: bareServer(await freePort()), settleMs }),
    );
  for (const database of databases) {
    // Runtimes take turns within each run, so a burst of load on the machine spreads over all of them.
    for (let i = 0; i < runs; i++) {
      for (const runtime of runtimes) {
        const target = await newTarget(database);
        try {
          const config = await writeConfigFor(target);
          for (const data of ['fresh', 'existing']) {
            // A start that fails (a loaded machine can miss Kazma's 1 s Redis probe) is said and skipped.
            const sample = await measureStart({ command: kazmaCommand(runtime, config), settleMs }).catch(
              (error: Error) => {
                process.stderr.write(
                  `  ${database} ${data} ${runtime.name}: FAILED, skipped: ${error.message.split('\n').slice(0, 3).join(' ')}\n`,
                );
              },
            );
            if (!sample) continue;
            rowFor(database, data, runtime.name).samples.push(sample);
            process.stderr.write(
              `  ${database} ${data} ${runtime.name}: ${JSON.stringify(sample, (_k, v: unknown) => (typeof v === 'number' ? Math.round(v) : v))}\n`,
            );
          }
        } finally {
          await target.drop();
        }
      }
      process.stderr.write(`  ${database}: run ${i + 1}/${runs} done (load average ${loadavg()[0]!.toFixed(1)})\n`);
    }
  }
} finally {
  await Promise.all([telegram.close(), discord.close(), slack.close(), llm.close()]);
  rmSync(scratch, { recursive: true, force: true });
}
rows.sort((a, b) => order(a) - order(b));
printTable(rows);

/** Table order: the baseline, then per database fresh before existing, runtimes in the order above. */
function order(row: Row): number {
  if (row.database === '—') return -1;
  return (
    databases.indexOf(row.database as never) * 100 +
    (row.data === 'fresh' ? 0 : 50) +
    runtimes.findIndex((r) => r.name === row.runtime)
  );
}

interface Target {
  dataDir: string;
  url: string;
  drop(): Promise<void>;
}

/** A new data dir, and on PostgreSQL a new empty database: the "fresh" start migrates it, the next reuses it. */
async function newTarget(database: 'pglite' | 'postgres'): Promise<Target> {
  const dataDir = mkdtempSync(join(scratch, 'data-'));
  const pg = database === 'postgres' ? await createPgDatabase() : undefined;
  return {
    dataDir,
    url: pg?.url ?? '',
    drop: async () => {
      await pg?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function writeConfigFor(target: Target): Promise<{ path: string; port: number }> {
  const port = await freePort();
  const path = join(target.dataDir, 'kazma.yaml');
  writeFileSync(
    path,
    `data_dir: ${JSON.stringify(join(target.dataDir, 'data'))}
http: { port: ${port} }
database: { url: "${target.url}" }
redis: { url: "redis://127.0.0.1:6379" }
model: { name: fake-model, base_url: "${llm.baseURL}" }
telegram: { enabled: true, token: "${telegram.token}", api_root: "${telegram.apiRoot}" }
discord: { enabled: true, token: "${discord.token}", api: "${discord.api}" }
slack: { enabled: true, token: "${slack.botToken}", signing_secret: "${slack.signingSecret}", api_url: "${slack.apiUrl}" }
log: { level: info }
`,
  );
  return { path, port };
}

function kazmaCommand(runtime: Runtime, config: { path: string; port: number }) {
  return {
    args: [...values['node-arg'], ...runtime.entry, 'start', '--config', config.path],
    cwd: runtime.cwd,
    port: config.port,
  };
}

/** The floor: node itself with an HTTP server that answers /readyz 200 at once (and says "started"). */
function bareServer(port: number) {
  const script = `require('node:http').createServer((q, s) => s.end('{}')).listen(+process.env.PORT, '127.0.0.1', () => console.log(JSON.stringify({ msg: 'kazma started' })))`;
  return { args: ['-e', script], cwd: ROOT, port };
}

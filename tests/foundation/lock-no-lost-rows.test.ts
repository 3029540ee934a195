import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { count } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { openDatabase, schema } from '../../src/core/db/index.ts';
import { eventually } from '../helpers/eventually.ts';
import { fixtureArgs } from '../helpers/fixtures.ts';
import { KazmaProcess, writeConfig } from '../helpers/kazma-process.ts';
import { REPO_ROOT } from '../helpers/repo-root.ts';

it('a second kazma start while another process writes to the PGlite dir refuses, and no row is lost', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kazma-rows-'));
  const writer = spawn(process.execPath, [...fixtureArgs('tests/foundation/fixtures/pglite-writer.ts'), dataDir], {
    cwd: REPO_ROOT,
  });
  let output = '';
  writer.stdout.on('data', (c) => (output += c));
  writer.stderr.on('data', (c) => (output += c));
  const writerExit = new Promise<number | null>((r) => writer.once('exit', r));
  const writerOutput = () => {
    if (writer.exitCode !== null) throw new Error(`the writer exited (${writer.exitCode}) before writing:\n${output}`);
    return output;
  };
  await eventually(writerOutput, (text) => text.includes('WRITING'), 'the PGlite writer printing WRITING', {
    timeoutMs: 60_000,
    intervalMs: 50,
  });

  const { path } = writeConfig(`data_dir: ${dataDir}\nhttp: { port: 0 }\n`);
  const second = new KazmaProcess(['start', '--config', path], { env: { DATABASE_URL: undefined } });
  expect((await second.exited).code).toBe(1);
  expect(second.stderr).toContain(`Another Kazma (pid ${writer.pid}) is already using ${dataDir}`);
  expect(output).not.toContain('DONE'); // the writer writes until we close its stdin

  writer.stdin.end();
  expect(await writerExit).toBe(0);
  const rows = Number(/DONE (\d+)/.exec(output)?.[1]);
  expect(rows).toBeGreaterThan(0);
  const database = await openDatabase({ dataDir });
  try {
    const [row] = await database.db.select({ n: count() }).from(schema.settings);
    expect(row?.n).toBe(rows);
  } finally {
    await database.close();
  }
});

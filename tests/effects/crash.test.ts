// The acceptance check for "write before you act, and act once": a real process is SIGKILLed after its
// tool acted and before the result was recorded; the next process must say "unknown", not act again.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, createPgDatabase, seedPgliteDataDir, type Backend } from '../helpers/databases.ts';
import { eventually } from '../helpers/eventually.ts';
import { fixtureArgs } from '../helpers/fixtures.ts';
import { REPO_ROOT } from '../helpers/repo-root.ts';

const CHILD = fileURLToPath(new URL('./fixtures/journal-child.ts', import.meta.url));
const live = new Set<ChildProcess>();

function start(target: string[], marker: string, mode: 'block' | 'complete') {
  const child = spawn(process.execPath, [...fixtureArgs(CHILD), ...target, '--marker', marker, '--mode', mode], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolve) =>
      child.on('exit', (code, signal) => {
        live.delete(child);
        resolve({ code, signal, stdout, stderr });
      }),
  );
  return { child, exited };
}

/** Runs a child to completion and returns the outcome it printed. */
async function runToEnd(target: string[], marker: string) {
  const { code, stdout, stderr } = await start(target, marker, 'complete').exited;
  expect(code, stderr).toBe(0);
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as {
    status: string;
    result?: unknown;
    receipt?: Record<string, unknown>;
  };
}

async function waitForLine(file: string, child: ChildProcess, timeoutMs = 30_000): Promise<void> {
  const read = () => {
    // Waiting on cannot help once the child is gone.
    if (child.exitCode !== null) throw new Error(`child exited (${child.exitCode}) before acting`);
    return existsSync(file) ? readFileSync(file, 'utf8') : '(no file yet)';
  };
  await eventually(read, (text) => text.includes('\n'), `a marker line in ${file}`, timeoutMs);
}

const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);

afterEach(() => {
  for (const child of live) child.kill('SIGKILL'); // only if a test failed half-way
});

for (const kind of BACKENDS) {
  describe(`effect journal across a crash [${kind}]`, () => {
    let dir: string;
    const cleanups: Array<() => Promise<void>> = [];
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'kazma-crash-'));
    });
    afterAll(async () => {
      for (const cleanup of cleanups) await cleanup();
      rmSync(dir, { recursive: true, force: true });
    });

    /** A fresh database only these children use: a PGlite data dir, or a new PostgreSQL database. */
    async function target(name: string, backend: Backend): Promise<string[]> {
      if (backend === 'pglite') return seedPgliteDataDir(join(dir, name)).then(() => ['--data-dir', join(dir, name)]);
      const created = await createPgDatabase();
      cleanups.push(created.drop);
      return ['--url', created.url];
    }

    it('reports a call killed mid-effect as unknown and does not act again', async () => {
      const db = await target('killed', kind);
      const marker = join(dir, 'killed.marker');
      const first = start(db, marker, 'block');
      await waitForLine(marker, first.child);
      first.child.kill('SIGKILL');
      expect((await first.exited).signal).toBe('SIGKILL');
      // The dead child's lock file is still there; the next process must take it over, not refuse.
      if (kind === 'pglite')
        expect(readFileSync(join(db[1] ?? '', 'kazma.lock'), 'utf8')).toBe(String(first.child.pid));

      const second = await runToEnd(db, marker);
      expect(second.status).toBe('unknown');
      expect(second.receipt).toMatchObject({ tool: 'append_marker', state: 'started', callId: 'call_append_1' });
      expect(lines(marker)).toEqual([`effect by pid ${first.child.pid}`]);
    });

    it('replays a call that finished before the process ended, without acting again', async () => {
      const db = await target('finished', kind);
      const marker = join(dir, 'finished.marker');
      const first = await runToEnd(db, marker);
      expect(first.status).toBe('ran');
      const second = await runToEnd(db, marker);
      expect(second).toEqual({ status: 'replayed', result: first.result });
      expect(lines(marker)).toHaveLength(1);
    });
  });
}

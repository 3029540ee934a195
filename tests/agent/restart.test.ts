// Durability across real processes: conversation memory survives a restart, and a process SIGKILLed
// while a side-effecting tool runs reports "effect unknown" after restart instead of acting again.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { BACKENDS, createPgDatabase, seedPgliteDataDir, type Backend } from '../helpers/databases.ts';
import { eventually } from '../helpers/eventually.ts';
import { transcript } from './helpers/core.ts';
import { CHAT_CHILD, killAll, spawnNode, writeConfig } from './helpers/spawn.ts';

let dir: string;
const cleanups: Array<() => Promise<void>> = [];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kazma-restart-'));
});
afterEach(() => killAll());
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/** A kazma.yaml for one process: a fresh store per test (shared by its processes), this fake model. */
function config(name: string, store: Record<string, unknown>, llm: FakeLlm): string {
  return writeConfig(dir, `${name}-${llm.port}.yaml`, {
    ...store,
    http: { port: 0 },
    model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 0 },
    access: { operators: [{ name: 'maya', console: 'maya' }] },
  });
}

async function store(name: string, backend: Backend): Promise<Record<string, unknown>> {
  const base = { data_dir: join(dir, name) };
  if (backend === 'pglite') return seedPgliteDataDir(base.data_dir).then(() => base);
  const created = await createPgDatabase();
  cleanups.push(created.drop);
  return { ...base, database: { url: created.url } };
}

for (const backend of BACKENDS) {
  describe(`restart [${backend}]`, () => {
    it('remembers the conversation in a second process (and a restarted model server)', async () => {
      const where = await store(`memory-${backend}`, backend);
      const first = await startFakeLlm();
      const one = spawnNode(CHAT_CHILD, ['--config', config('memory', where, first)]);
      one.send(['my name is Ada'], true);
      expect((await one.exited).code, one.stderr()).toBe(0);
      expect(one.stdout()).toContain('kazma> echo: my name is Ada');
      await first.close();

      // A new model server restarts its response ids; earlier replies must not be overwritten by them.
      const second = await startFakeLlm();
      const two = spawnNode(CHAT_CHILD, ['--config', config('memory', where, second)]);
      two.send(['what is my name?'], true);
      expect((await two.exited).code, two.stderr()).toBe(0);
      expect(transcript(second.requests[0]!)).toEqual([
        'user:my name is Ada',
        'assistant:echo: my name is Ada',
        'user:what is my name?',
      ]);
      expect(two.stdout()).toContain('kazma> echo: what is my name?');
      await second.close();
    });

    it('reports a tool killed mid-effect as unknown after restart and never runs it again', async () => {
      const where = await store(`crash-${backend}`, backend);
      const marker = join(dir, `crash-${backend}.marker`);
      const llm = await startFakeLlm();
      try {
        llm.script({ toolCalls: [{ name: 'append_marker', args: { line: 'effect', block: true } }] });
        const one = spawnNode(CHAT_CHILD, ['--config', config('crash', where, llm), '--marker', marker]);
        one.send(['append the marker']); // stdin stays open: the process is killed, it does not exit
        const read = () => {
          if (one.child.exitCode !== null)
            throw new Error(`the child exited before the marker line\n${one.stdout()}\n${one.stderr()}`);
          return readMarker(marker);
        };
        await eventually(
          read,
          (text) => text.includes('\n'),
          () => `the marker line\n${one.stdout()}\n${one.stderr()}`,
          60_000,
        );
        one.child.kill('SIGKILL');
        expect((await one.exited).signal).toBe('SIGKILL');

        const two = spawnNode(CHAT_CHILD, ['--config', config('crash', where, llm), '--marker', marker]);
        two.send(['did it work?'], true);
        expect((await two.exited).code, two.stderr()).toBe(0);
        expect(lines(marker)).toHaveLength(1);
        const out = two.stdout();
        expect(out).toMatch(
          /kazma> ⚠️ I started `append_marker` at .* but never saw it finish .*I did not run it again\./,
        );
        // The interrupted turn ends with the warning, not a model summary; then the new message is answered.
        expect(out.indexOf('⚠️ I started')).toBeLessThan(out.indexOf('kazma> echo: did it work?'));
        expect(llm.requests).toHaveLength(2);
        // The model learns the outcome from the tool's result; the ⚠️ warning is Kazma's own notice to
        // the person, never handed to the model as words it said.
        expect(transcript(llm.requests[1]!)).toEqual([
          'user:append the marker',
          'assistant:',
          'tool:effect unknown: this call started earlier but never finished, and was not run again',
          'user:did it work?',
        ]);
      } finally {
        await llm.close();
      }
    });
  });
}

function readMarker(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

const lines = (file: string) => readMarker(file).split('\n').filter(Boolean);

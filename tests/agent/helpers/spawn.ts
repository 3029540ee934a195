// Spawning Kazma processes for restart tests: a child with piped stdio, its output collected.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from '../../helpers/eventually.ts';
import { fixtureArgs } from '../../helpers/fixtures.ts';
import { KAZMA_BIN } from '../../helpers/kazma-process.ts';
import { REPO_ROOT } from '../../helpers/repo-root.ts';

/** The compiled `kazma` command (dist/cli/index.js) the test run built once: what `npm start` runs. */
export const CLI = KAZMA_BIN;
export const CHAT_CHILD = join(REPO_ROOT, 'tests/agent/fixtures/chat-child.ts');

export interface Spawned {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Writes lines to stdin; `end` closes it (the chat then exits once its turns are done). */
  send(lines: string[], end?: boolean): void;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves when stdout contains `text`. */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
}

const live = new Set<ChildProcess>();

/** Kills every child still running (after a failed test). */
export function killAll(): void {
  for (const child of live) child.kill('SIGKILL');
}

/** Runs `node <script> ...args` from the repository root; a TypeScript script is a fixture, run as its bundle. */
export function spawnNode(script: string, args: string[]): Spawned {
  const child = spawn(process.execPath, [...fixtureArgs(script), ...args], {
    cwd: REPO_ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  live.add(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    }),
  );
  return {
    child,
    exited,
    stdout: () => out,
    stderr: () => err,
    send(lines, end = false) {
      child.stdin!.write(lines.map((l) => `${l}\n`).join(''));
      if (end) child.stdin!.end();
    },
    async waitFor(text, timeoutMs = 60_000) {
      const read = () => {
        if (!out.includes(text) && (child.exitCode !== null || child.signalCode !== null))
          throw new Error(`exited before printing "${text}"\n${out}\n${err}`);
        return out;
      };
      // The last read is the whole stdout; stderr is added to say why it may be missing.
      await eventually(
        read,
        (printed) => printed.includes(text),
        () => `"${text}" on stdout; stderr:\n${err}`,
        timeoutMs,
      );
    },
  };
}

/** Writes a kazma.yaml (JSON is YAML) into `dir` and returns its path. */
export function writeConfig(dir: string, name: string, config: Record<string, unknown>): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(config, null, 2));
  return path;
}

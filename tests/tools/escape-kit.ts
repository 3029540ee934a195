// Shared pieces of the escape and sandbox tests: a canary outside the workspace that a payload would read
// or change, the tools wired as Kazma wires them, and a process that flips a directory for a symlink.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'vitest';
import { builtinTools, type ShellToolOptions } from '../../src/core/tools/builtin/index.ts';
import type { ToolContext } from '../../src/core/tools/define.ts';
import { ToolRegistry, type ExecuteResult } from '../../src/core/tools/registry.ts';

export const SECRET = 'canary-secret-7f3a91';

/**
 * A directory outside the workspace holding one secret file. `base` defaults to /var/tmp: outside /tmp,
 * so the sandbox's private /tmp cannot be what keeps it safe; the read-only root has to.
 */
export interface Canary {
  dir: string;
  secretFile: string;
  /** A path a payload would create. */
  marker: string;
  /** Fails the test when anything in the canary directory was added, removed or changed. */
  untouched(): Promise<void>;
  cleanup(): Promise<void>;
}

export async function makeCanary(base = '/var/tmp'): Promise<Canary> {
  const dir = await realpath(await mkdtemp(path.join(base, 'kazma-canary-')));
  const secretFile = path.join(dir, 'secret.txt');
  await writeFile(secretFile, SECRET);
  return {
    dir,
    secretFile,
    marker: path.join(dir, 'marker'),
    async untouched() {
      expect(await readdir(dir)).toEqual(['secret.txt']);
      expect(await readFile(secretFile, 'utf8')).toBe(SECRET);
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** The built-in tools in one registry, the shell configured by `shell`. */
export function toolRegistry(shell: ShellToolOptions = {}): ToolRegistry {
  const registry = new ToolRegistry();
  for (const tool of builtinTools({ shell: { timeoutMs: 20_000, ...shell } })) registry.register(tool);
  return registry;
}

/** Runs a tool call as the agent would; returns the result and fails when secret text leaked into it. */
export async function call(
  registry: ToolRegistry,
  ctx: ToolContext,
  name: string,
  args: Record<string, unknown>,
): Promise<ExecuteResult> {
  const result = await registry.execute(name, args, ctx);
  expect(JSON.stringify(result)).not.toContain(SECRET);
  return result;
}

/**
 * A separate process that keeps swapping `dir` between a real directory and a symlink to `target`,
 * so a path checked while it was a directory may be a link when it is used. Stop it with `stop()`.
 */
export function startFlipper(dir: string, target: string): { stop: () => Promise<void> } {
  const script = `
    const fs = require('node:fs');
    const [dir, target] = process.argv.slice(1);
    const real = dir + '.real';
    // Every step may fail when a tool recreated the directory meanwhile; the loop always moves on.
    for (;;) {
      try { fs.rmSync(real, { recursive: true, force: true }); } catch {}
      try { fs.mkdirSync(dir, { recursive: true }); } catch {}
      try { fs.renameSync(dir, real); fs.symlinkSync(target, dir); } catch {}
      try { fs.unlinkSync(dir); } catch {}
      try { fs.renameSync(real, dir); } catch {}
    }`;
  const child: ChildProcess = spawn(process.execPath, ['-e', script, dir, target], { stdio: 'ignore' });
  return {
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

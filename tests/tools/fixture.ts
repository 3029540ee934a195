import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ToolContext } from '../../src/core/tools/define.ts';

/** A fresh real directory for one test file, and a context pointing at it. */
export async function makeWorkspace(): Promise<{ dir: string; ctx: ToolContext; cleanup: () => Promise<void> }> {
  // realpath: on some systems tmpdir is itself a symlink, and the tools compare real paths.
  const dir = await realpath(await mkdtemp(path.join(tmpdir(), 'kazma-tools-')));
  return {
    dir,
    ctx: { workspace: dir, env: { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C' } },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

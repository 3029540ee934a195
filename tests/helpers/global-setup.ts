// Runs once per test run, before any worker: builds the migrated PGlite template every storage test
// copies (initdb in WASM plus migrations costs seconds; doing it once instead of once per test file
// keeps the suite well inside CI's time), and brings dist/ up to date, so every `kazma` process a test
// spawns (bin/kazma.js) runs the compiled code `npm start` runs — not the source through tsx, which
// costs each spawn ~3 s of CPU more, nor one or the other depending on which test file ran first.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildPgliteTemplate } from './pglite-template.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplatePath: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  execFileSync(process.execPath, [join(import.meta.dirname, '../../bin/build.js'), '--if-stale'], { stdio: 'inherit' });
  const dir = mkdtempSync(join(tmpdir(), 'kazma-template-'));
  const path = join(dir, 'pglite.tar');
  writeFileSync(path, Buffer.from(await (await buildPgliteTemplate()).arrayBuffer()));
  project.provide('pgliteTemplatePath', path);
  return () => rmSync(dir, { recursive: true, force: true });
}

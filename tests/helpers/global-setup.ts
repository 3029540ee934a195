// Runs once per test run, before any worker: builds the migrated PGlite template every storage test
// copies (initdb in WASM plus migrations costs seconds; doing it once instead of once per test file
// keeps the suite well inside CI's time).
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
  const dir = mkdtempSync(join(tmpdir(), 'kazma-template-'));
  const path = join(dir, 'pglite.tar');
  writeFileSync(path, Buffer.from(await (await buildPgliteTemplate()).arrayBuffer()));
  project.provide('pgliteTemplatePath', path);
  return () => rmSync(dir, { recursive: true, force: true });
}

// Tests wait one way: `eventually` (tests/helpers/eventually.ts), which on timeout names what was
// awaited and what was last seen. A loop that sleeps between two looks says neither, and each one
// picks its own timeout; this finds such loops anywhere under tests/ and fails on them.
// Tests take the repository's root one way too: REPO_ROOT (tests/helpers/repo-root.ts). A file that
// works it out itself (climbing up from its own place, or taking the working directory for it) breaks
// when it moves or runs from elsewhere; this finds those under tests/ and fails on them.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/repo-root.ts';
import { pollingLoopsIn } from '../helpers/polling-loops.ts';
import { repoRootComputationsIn } from '../helpers/repo-root-computations.ts';

/** Loops that sleep on purpose, with the reason: each is work at a pace, or the one wait itself. */
const PACED: Record<string, string> = {
  'tests/helpers/eventually.ts': 'the one way tests wait',
  'tests/foundation/fixtures/pglite-writer.ts': 'a child that writes a row every 5 ms until its stdin closes: work',
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : /\.[cm]?ts$/.test(entry.name) ? [path] : [];
  });
}

describe('tests wait with eventually', () => {
  it('no file under tests/ polls in a loop of its own', () => {
    const found = sourceFiles(join(REPO_ROOT, 'tests'))
      .map((path) => relative(REPO_ROOT, path))
      .filter((path) => !(path in PACED))
      .flatMap((path) =>
        pollingLoopsIn(readFileSync(join(REPO_ROOT, path), 'utf8'), path).map((l) => `${path}:${l.line}: ${l.text}`),
      );
    expect(found).toEqual([]);
  });

  it('every exempt file still has the loop it is exempt for', () => {
    for (const path of Object.keys(PACED))
      expect(pollingLoopsIn(readFileSync(join(REPO_ROOT, path), 'utf8'), path), path).not.toEqual([]);
  });

  it.each([
    [
      'a sleep helper of the file',
      'const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));\nwhile (!done()) await sleep(10);',
    ],
    [
      'a Promise around setTimeout',
      'for (let i = 0; i < 200 && !late; i++) await new Promise((r) => setTimeout(r, 5));',
    ],
    [
      'setTimeout from timers/promises, renamed',
      "import { setTimeout as pause } from 'node:timers/promises';\ndo { await pause(5); } while (!ready);",
    ],
    [
      'a deadline loop',
      'for (const deadline = Date.now() + 10_000; taken < pushed; ) {\n  if (Date.now() > deadline) throw new Error();\n' +
        '  await new Promise((r) => setTimeout(r, 10));\n}',
    ],
    [
      'a sleep helper declared as a function',
      'async function nap() { await new Promise((r) => setTimeout(r, 5)); }\nwhile (x) await nap();',
    ],
  ])('finds a polling loop: %s', (_name, source) => {
    expect(pollingLoopsIn(source)).toHaveLength(1);
  });

  it.each([
    ['a loop that works until a deadline, never sleeping', 'while (Date.now() < deadline) await call(registry, ctx);'],
    [
      'one pause outside any loop',
      'await new Promise((r) => setTimeout(r, 300)); // a duplicate would have run by now',
    ],
    ['a timer armed in a loop, not awaited', 'for (const c of children) setTimeout(() => c.kill(), 100);'],
    [
      'a function defined in a loop',
      'for (const id of ids) jobs.push(async () => { await sleep(5); });\nconst sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));',
    ],
    ['eventually itself', 'await eventually(() => rows(), (r) => r.length > 0, "a row");'],
  ])('lets through %s', (_name, source) => {
    expect(pollingLoopsIn(source)).toEqual([]);
  });
});

describe('tests take the repository root from tests/helpers/repo-root.ts', () => {
  const ROOT_HELPER = 'tests/helpers/repo-root.ts';
  const computations = (path: string) =>
    repoRootComputationsIn(readFileSync(join(REPO_ROOT, path), 'utf8'), path).map(
      (c) => `${path}:${c.line}: ${c.text}`,
    );

  it('no file under tests/ works it out itself', () => {
    const found = sourceFiles(join(REPO_ROOT, 'tests'))
      .map((path) => relative(REPO_ROOT, path))
      .filter((path) => path !== ROOT_HELPER)
      .flatMap(computations);
    expect(found).toEqual([]);
  });

  it('the one place that does is found by the check', () => {
    expect(computations(ROOT_HELPER)).toEqual([`${ROOT_HELPER}:9: new URL('../..', import.meta.url)`]);
  });

  it.each([
    [
      'a URL two folders up',
      'tests/effects/crash.test.ts',
      "const ROOT = fileURLToPath(new URL('../..', import.meta.url));",
    ],
    [
      'a URL three folders up, with a slash',
      'tests/agent/x/y.test.ts',
      "fileURLToPath(new URL('../../../', import.meta.url))",
    ],
    ['import.meta.dirname, resolved', 'tests/helpers/x.ts', "const ROOT = resolve(import.meta.dirname, '../..');"],
    ['a file at the root, from here', 'tests/helpers/x.ts', "join(import.meta.dirname, '../../bin/build.js')"],
    ['__dirname, in segments', 'tests/x/y.test.ts', "const root = path.resolve(__dirname, '..', '..');"],
    [
      "this file's folder from its URL",
      'tests/x/y.test.ts',
      "resolve(dirname(fileURLToPath(import.meta.url)), '../..')",
    ],
    ['the working directory', 'tests/x/y.test.ts', 'parseConfig(text, { baseDir: process.cwd() });'],
    ['a path read from the working directory', 'tests/x/y.test.ts', "readdirSync('src/adapters/console');"],
    ["the build scripts' ROOT", 'tests/x/y.ts', "import { ROOT, distPaths } from '../../bin/dist-state.js';"],
  ])('finds %s', (_name, path, source) => {
    expect(repoRootComputationsIn(source, path)).toHaveLength(1);
  });

  it.each([
    [
      'a fixture beside the file',
      'tests/effects/crash.test.ts',
      "fileURLToPath(new URL('./fixtures/child.ts', import.meta.url))",
    ],
    ['a folder up, still under tests/', 'tests/agent/x/y.test.ts', "join(import.meta.dirname, '../fixtures/child.ts')"],
    [
      'REPO_ROOT itself',
      'tests/x/y.test.ts',
      "import { REPO_ROOT } from '../helpers/repo-root.ts';\njoin(REPO_ROOT, 'docs');",
    ],
    ['another export of the build scripts', 'tests/x/y.ts', "import { distPaths } from '../../bin/dist-state.js';"],
    ['a child given a working directory of its own', 'tests/x/y.test.ts', 'spawn(cmd, args, { cwd: dir });'],
    ['a path read from a folder of its own', 'tests/x/y.test.ts', "readFileSync(join(dir, 'kazma.yaml'), 'utf8');"],
  ])('lets through %s', (_name, path, source) => {
    expect(repoRootComputationsIn(source, path)).toEqual([]);
  });
});

// Tests wait one way: `eventually` (tests/helpers/eventually.ts), which on timeout names what was
// awaited and what was last seen. A loop that sleeps between two looks says neither, and each one
// picks its own timeout; this finds such loops anywhere under tests/ and fails on them.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/kazma-process.ts';
import { pollingLoopsIn } from '../helpers/polling-loops.ts';

/** Loops that sleep on purpose, with the reason: each is work at a pace, or the one wait itself. */
const PACED: Record<string, string> = {
  'tests/helpers/eventually.ts': 'the one way tests wait',
  'tests/foundation/fixtures/pglite-writer.ts': 'a child that writes a row every 5 ms until its stdin closes: work',
  'tests/fakes/llm-server.ts': "a fake model that writes its stream's events at a pace (pacing.delayMs): work",
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

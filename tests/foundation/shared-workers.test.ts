// The suite runs test files one after another in shared workers (vitest.config.ts: isolate: false), so a
// file must not change what the next one sees of the process: no mocked module, no faked timers, no
// changed environment. This keeps that assumption checked rather than remembered.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/repo-root.ts';

/** What would leak from one test file into the next in a shared worker: its name, pattern, and why. */
const LEAKS: Array<[string, RegExp, string]> = [
  ['mocked module', /\bvi\.(do)?mock\(/, 'it stays mocked for the files after it'],
  ['faked timers', /\bvi\.useFakeTimers\(/, 'they stay faked if a file forgets to restore them'],
  ['stubbed global', /\bvi\.stub(Env|Global)\(/, 'it outlives the file unless unstubbed'],
  [
    'changed environment',
    /\bprocess\.env\.[A-Za-z_]\w*\s*=(?!=)|\bprocess\.env\[[^\]]+\]\s*=(?!=)|\bdelete process\.env\b|Object\.assign\(process\.env\b/,
    'it reaches every later file (hand env to a child process instead)',
  ],
];

/** The leaks found in `text`: each as its name and why it leaks. */
function leaksIn(text: string): string[] {
  return LEAKS.filter(([, pattern]) => pattern.test(text)).map(([name, , why]) => `${name}: ${why}`);
}

/** A call on vitest's `vi`, written out here rather than in this file's text, which the suite's own checks read. */
const viCall = (method: string, args: string): string => `${['vi', method].join('.')}(${args});`;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? testFiles(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('test files share workers', () => {
  it('no test file mocks a module, fakes timers, stubs a global or changes process.env', () => {
    const found = testFiles(join(REPO_ROOT, 'tests'))
      .filter((path) => !path.endsWith('shared-workers.test.ts'))
      .flatMap((path) => leaksIn(readFileSync(path, 'utf8')).map((leak) => `${relative(REPO_ROOT, path)}: ${leak}`));
    expect(found).toEqual([]);
  });

  it.each([
    [viCall('mock', "'../src/core/db/client.ts'"), 'mocked module'],
    [viCall('useFakeTimers', ''), 'faked timers'],
    [viCall('stubEnv', "'REDIS_URL', ''"), 'stubbed global'],
    ["process.env.DATABASE_URL = 'postgres://x';", 'changed environment'],
    ["process.env['KAZMA_VAULT_KEY'] = key;", 'changed environment'],
    ['delete process.env.REDIS_URL;', 'changed environment'],
  ])('finds %s', (line, what) => {
    expect(leaksIn(`const a = 1;\n${line}\n`).map((leak) => leak.split(':')[0])).toEqual([what]);
  });

  it('lets reading the environment and handing it to a child through', () => {
    expect(
      leaksIn(
        "const url = process.env.DATABASE_URL ?? '';\nif (process.env.CI === '1') {}\nspawn(node, [], { env: { ...process.env, REDIS_URL: '' } });\n",
      ),
    ).toEqual([]);
  });
});

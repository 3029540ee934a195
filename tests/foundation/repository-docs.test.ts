// What a newcomer and a contributor read stays whole: the README stays short, every relative link in the
// README, CONTRIBUTING.md and docs/ leads to a file (and a heading) that exists, compose.yaml offers the
// services the tests need, and `npm run test:fast` leaves out every test file that starts Kazma processes.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PROCESS_TESTS } from '../../vitest.fast.config.ts';
import { REPO_ROOT } from '../helpers/repo-root.ts';

const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');

function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path, suffix) : entry.name.endsWith(suffix) ? [path] : [];
  });
}

/** Markdown without its fenced code blocks, where a `](…)` or a `#` line is not a link or a heading. */
const prose = (markdown: string) => markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');

/** GitHub's anchors for a file's headings: lower case, punctuation dropped, spaces as `-`, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading] of prose(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const slug = heading!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** The relative links of one Markdown file that lead nowhere: `file: target (why)`. */
function brokenLinks(file: string, markdown: string, readTarget: (path: string) => string | undefined): string[] {
  const broken: string[] = [];
  for (const [, target] of prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue; // https:, mailto: — not ours to check
    const [path, anchor] = target!.split('#') as [string, string | undefined];
    const resolved = path ? relative(REPO_ROOT, resolve(dirname(join(REPO_ROOT, file)), path)) : file;
    const text = readTarget(resolved);
    if (text === undefined) broken.push(`${file}: ${target} (no file ${resolved})`);
    else if (anchor && resolved.endsWith('.md') && !anchorsOf(text).has(anchor)) {
      broken.push(`${file}: ${target} (no heading #${anchor} in ${resolved})`);
    }
  }
  return broken;
}

const readIfThere = (path: string) => {
  const full = join(REPO_ROOT, path);
  if (!existsSync(full)) return undefined;
  return path.endsWith('.md') ? readFileSync(full, 'utf8') : '';
};

describe('the README and the docs', () => {
  it('the README stays what a newcomer reads: at most 400 lines', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(400);
  });

  it('every relative link in README.md, CONTRIBUTING.md and docs/ leads to a file and a heading that exist', () => {
    const files = ['README.md', 'CONTRIBUTING.md', ...filesUnder('docs', '.md')];
    expect(files).toContain('docs/configuration.md');
    expect(files.flatMap((file) => brokenLinks(file, read(file), readIfThere))).toEqual([]);
  });

  it('negative control: a link to a missing file, or to a heading the file lacks, is found', () => {
    const doc =
      '# Title\n\n## Reading the web: `web_fetch`\n\n' +
      'See [a](cli.md), [b](missing.md), [c](#title), [d](#nowhere),\n' +
      '[e](#reading-the-web-web_fetch), [f](configuration.md#no-such-key), [g](https://example.com/x.md).\n' +
      '```md\n[in a code block](not-checked.md)\n```\n';
    const files: Record<string, string> = {
      'docs/page.md': doc,
      'docs/cli.md': '# The `kazma` command\n',
      'docs/configuration.md': '# Configuration\n',
    };
    expect(brokenLinks('docs/page.md', doc, (path) => files[path])).toEqual([
      'docs/page.md: missing.md (no file docs/missing.md)',
      'docs/page.md: #nowhere (no heading #nowhere in docs/page.md)',
      'docs/page.md: configuration.md#no-such-key (no heading #no-such-key in docs/configuration.md)',
    ]);
  });
});

describe('compose.yaml', () => {
  it('starts PostgreSQL and Redis on 127.0.0.1 at the ports the tests use, each with a healthcheck', () => {
    type Service = { image: string; ports: string[]; healthcheck?: { test: unknown } };
    const compose = parse(read('compose.yaml')) as { services: Record<string, Service> };
    expect(Object.keys(compose.services).sort()).toEqual(['postgres', 'redis']);
    expect(compose.services.postgres!.image).toMatch(/^postgres:\d+/);
    expect(compose.services.postgres!.ports).toEqual(['127.0.0.1:5432:5432']);
    expect(compose.services.redis!.image).toMatch(/^redis:\d+/);
    expect(compose.services.redis!.ports).toEqual(['127.0.0.1:6379:6379']);
    for (const service of Object.values(compose.services)) expect(service.healthcheck?.test).toBeTruthy();
  });
});

/** A test file that starts a process running Kazma's code: a `kazma` command, or a fixture child. */
const startsKazma = (text: string) =>
  /\b(KazmaProcess|runKazma|spawnNode)\b/.test(text) ||
  (/\bfixtureArgs\(/.test(text) && /\b(spawn|execFile)\w*\(/.test(text));

describe('npm run test:fast', () => {
  it('exists, is documented, and runs its own vitest config; test:bench runs the benches', () => {
    const { scripts } = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    expect(scripts['test:fast']).toBe('vitest run --config vitest.fast.config.ts');
    expect(scripts['test:bench']).toBe('vitest run tests/bench');
    expect(scripts.test).toMatch(/vitest run$/);
    const contributing = read('CONTRIBUTING.md');
    for (const command of ['npm test', 'npm run test:fast', 'npm run test:bench', 'npx vitest run tests/']) {
      expect(contributing).toContain(command);
    }
  });

  it('leaves out every test file that starts Kazma processes, and lists only files that exist', () => {
    const tests = filesUnder('tests', '.test.ts').filter(
      (path) => !path.startsWith('tests/bench/') && !path.endsWith('repository-docs.test.ts'),
    );
    const starting = tests.filter((path) => startsKazma(read(path)));
    expect(starting.length).toBeGreaterThan(10);
    const missing = starting.filter((path) => !PROCESS_TESTS.includes(path));
    expect(missing, 'add these to PROCESS_TESTS in vitest.fast.config.ts').toEqual([]);
    expect(PROCESS_TESTS.filter((path) => !existsSync(join(REPO_ROOT, path)))).toEqual([]);
  });

  it('negative control: a file that starts Kazma is recognised, one that only imports the helpers is not', () => {
    expect(startsKazma('const k = new KazmaProcess(config);')).toBe(true);
    expect(startsKazma('spawn(process.execPath, [...fixtureArgs(CHILD)]);')).toBe(true);
    const onlyImports = "import { killAll } from '../agent/helpers/spawn.ts';\nexpect(fixtureArgs('bin/kazma.js'));";
    expect(startsKazma(onlyImports)).toBe(false);
  });
});

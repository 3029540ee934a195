import { describe, expect, it } from 'vitest';
import { checkImportGraph, readSourceTree, type SourceTree } from '../helpers/import-graph.ts';
import { REPO_ROOT } from '../helpers/kazma-process.ts';

const tree = readSourceTree(REPO_ROOT);

/** A copy of the real tree with one file's text changed or added. */
function withFile(path: string, text: string): SourceTree {
  return new Map([...tree, [path, text]]);
}

describe('architecture: the one-way imports of docs/architecture.md', () => {
  it('holds for the source tree as it is', () => {
    expect(tree.size).toBeGreaterThan(10);
    expect(checkImportGraph(tree)).toEqual([]);
  });

  it('keeps every source file small (at most 250 lines: one job per file)', () => {
    const long = [...tree].filter(([path]) => path.startsWith('src/')).map(([path, text]) => [path, text.split('\n').length - (text.endsWith('\n') ? 1 : 0)] as const).filter(([, lines]) => lines > 250);
    expect(long).toEqual([]);
  });

  describe('negative controls: each rule fires on a deliberately bad import', () => {
    it.each([
      ['grammy', "import { Bot } from 'grammy';"],
      ['discord.js', "import { Client } from 'discord.js';"],
      ['@slack/bolt', "import { App } from '@slack/bolt';"],
      ['hono', "import { Hono } from 'hono';"],
      ['bullmq', "import { Queue } from 'bullmq';"],
    ])('core importing %s', (pkg, line) => {
      const bad = withFile('src/core/config/bad.ts', `${line}\nexport const x = 1;\n`);
      expect(checkImportGraph(bad)).toContain(`src/core/config/bad.ts: core imports platform/queue package "${pkg}"`);
    });

    it.each([
      ['src/main.ts', 'bullmq', 'src/jobs/', "import { Queue } from 'bullmq';"],
      ['src/adapters/http/bad.ts', 'ioredis', 'src/jobs/', "import { Redis } from 'ioredis';"],
      ['src/adapters/slack/bad.ts', 'grammy', 'src/adapters/telegram/', "import { Bot } from 'grammy';"],
      ['src/adapters/telegram/bad.ts', 'discord.js', 'src/adapters/discord/', "import { REST } from 'discord.js';"],
      ['src/assemble.ts', '@slack/bolt', 'src/adapters/slack/', "import { App } from '@slack/bolt';"],
    ])('%s importing %s (only %s may)', (file, pkg, owner, line) => {
      const bad = withFile(file, `${line}\n${tree.get(file) ?? 'export const x = 1;\n'}`);
      expect(checkImportGraph(bad)).toEqual([expect.stringMatching(new RegExp(`^${file}: imports .* "${pkg.replace('.', '\\.')}", which only ${owner} may import$`))]);
    });

    it('core importing an adapter', () => {
      const bad = withFile('src/core/bad.ts', "import { HttpServer } from '../adapters/http/index.ts';\n");
      expect(checkImportGraph(bad)).toEqual(['src/core/bad.ts: core imports src/adapters/http/index.ts (core imports nothing outside src/core)']);
    });

    it('an adapter importing another adapter, and an adapter importing jobs', () => {
      const bad = withFile('src/adapters/telegram/bad.ts', "import '../http/index.ts';\nimport '../../jobs/redis.ts';\n");
      expect(checkImportGraph(bad)).toEqual([
        'src/adapters/telegram/bad.ts: adapter "telegram" imports adapter "http" (src/adapters/http/index.ts)',
        'src/adapters/telegram/bad.ts: adapter "telegram" imports src/jobs/redis.ts (adapters never import jobs)',
      ]);
    });

    it('an import cycle', () => {
      const bad = new Map([...tree, ['src/core/a.ts', "import './b.ts';\n"], ['src/core/b.ts', "export * from './a.ts';\n"]]);
      expect(checkImportGraph(bad)).toEqual(['import cycle: src/core/a.ts -> src/core/b.ts -> src/core/a.ts']);
    });

    it('type-only imports do not count as a cycle (they vanish at run time)', () => {
      const ok = new Map([...tree, ['src/core/a.ts', "import type { B } from './b.ts';\nexport type A = 1;\n"], ['src/core/b.ts', "import './a.ts';\nexport type B = 2;\n"]]);
      expect(checkImportGraph(ok)).toEqual([]);
    });
  });
});

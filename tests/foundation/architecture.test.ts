import { describe, expect, it } from 'vitest';
import { checkImportGraph, readSourceTree, type SourceTree } from '../helpers/import-graph.ts';
import { checkLayers, checkLazyImports } from '../helpers/layering.ts';
import { checkClockReads, checkModuleState } from '../helpers/module-state.ts';
import { checkSubcommandDispatch } from '../helpers/subcommand-dispatch.ts';
import { REPO_ROOT } from '../helpers/repo-root.ts';

const tree = readSourceTree(REPO_ROOT);

/** Lines of src/ longer than `limit` columns, as `path:line (n columns)`. */
function linesOver(source: SourceTree, limit: number): string[] {
  return [...source]
    .filter(([path]) => path.startsWith('src/'))
    .flatMap(([path, text]) =>
      text
        .split('\n')
        .flatMap((line, i) => ([...line].length > limit ? [`${path}:${i + 1} (${[...line].length} columns)`] : [])),
    );
}

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
    const long = [...tree]
      .filter(([path]) => path.startsWith('src/'))
      .map(([path, text]) => [path, text.split('\n').length - (text.endsWith('\n') ? 1 : 0)] as const)
      .filter(([, lines]) => lines > 250);
    expect(long).toEqual([]);
  });

  it('keeps every line of src/ within 120 columns (the formatter wraps code; comments and strings are ours)', () => {
    expect(linesOver(tree, 120)).toEqual([]);
    // Negative control: one long comment line is found, with its place.
    const long = `// ${'x'.repeat(130)}\n`;
    expect(linesOver(withFile('src/core/long.ts', long), 120)).toEqual(['src/core/long.ts:1 (133 columns)']);
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
      expect(checkImportGraph(bad)).toEqual([
        expect.stringMatching(
          new RegExp(`^${file}: imports .* "${pkg.replace('.', '\\.')}", which only ${owner} may import$`),
        ),
      ]);
    });

    it('core importing an adapter', () => {
      const bad = withFile('src/core/bad.ts', "import { HttpServer } from '../adapters/http/index.ts';\n");
      expect(checkImportGraph(bad)).toEqual([
        'src/core/bad.ts: core imports src/adapters/http/index.ts (core imports nothing outside src/core)',
      ]);
    });

    it('an adapter importing another adapter, and an adapter importing jobs', () => {
      const bad = withFile(
        'src/adapters/telegram/bad.ts',
        "import '../http/index.ts';\nimport '../../jobs/redis.ts';\n",
      );
      expect(checkImportGraph(bad)).toEqual([
        'src/adapters/telegram/bad.ts: adapter "telegram" imports adapter "http" (src/adapters/http/index.ts)',
        'src/adapters/telegram/bad.ts: adapter "telegram" imports src/jobs/redis.ts (adapters never import jobs)',
      ]);
    });

    it('an import cycle', () => {
      const bad = new Map([
        ...tree,
        ['src/core/a.ts', "import './b.ts';\n"],
        ['src/core/b.ts', "export * from './a.ts';\n"],
      ]);
      expect(checkImportGraph(bad)).toEqual(['import cycle: src/core/a.ts -> src/core/b.ts -> src/core/a.ts']);
    });

    it('type-only imports do not count as a cycle (they vanish at run time)', () => {
      const ok = new Map([
        ...tree,
        ['src/core/a.ts', "import type { B } from './b.ts';\nexport type A = 1;\n"],
        ['src/core/b.ts', "import './a.ts';\nexport type B = 2;\n"],
      ]);
      expect(checkImportGraph(ok)).toEqual([]);
    });
  });

  describe('modules and layers (docs/architecture.md)', () => {
    it('hold for the source tree as it is: a face per module, imports through it, a foundation, no module cycle', () => {
      expect(checkLayers(tree)).toEqual([]);
    });

    it('a module without an index.ts', () => {
      const bad = withFile('src/core/newmod/thing.ts', 'export const x = 1;\n');
      expect(checkLayers(bad)).toEqual(['src/core/newmod: has no index.ts (its public face)']);
    });

    it("an import of another module's internal file, a static import of a lazy entry, and the same through its face", () => {
      const deep = withFile(
        'src/core/tasks/bad.ts',
        "import { ThreadLeases } from '../turns/thread-lease.ts';\nexport const x = ThreadLeases;\n",
      );
      expect(checkLayers(deep)).toEqual([
        'src/core/tasks/bad.ts: imports src/core/turns/thread-lease.ts, inside src/core/turns; import src/core/turns/index.ts',
      ]);
      const lazy = withFile(
        'src/bad.ts',
        "import '../src/core/agent/checkpoint/checkpointer.ts';\n".replace('../src/', './'),
      );
      expect(checkLayers(lazy)).toEqual([
        'src/bad.ts: imports src/core/agent/checkpoint/checkpointer.ts, inside src/core/agent; import src/core/agent/index.ts',
      ]);
      const face = withFile(
        'src/core/tasks/good.ts',
        "import { ThreadLeases } from '../turns/index.ts';\nexport const x = ThreadLeases;\n",
      );
      expect(checkLayers(face)).toEqual([]);
    });

    it('the foundation importing a feature module, by value or by type', () => {
      const byValue = withFile(
        'src/core/config/bad.ts',
        "import { Tasks } from '../tasks/index.ts';\nexport const x = Tasks;\n",
      );
      expect(checkLayers(byValue)).toEqual([
        'src/core/config/bad.ts: the foundation imports src/core/tasks, a feature module',
      ]);
      const byType = withFile(
        'src/core/config/bad.ts',
        "import type { Tasks } from '../tasks/index.ts';\nexport type X = Tasks;\n",
      );
      expect(checkLayers(byType)).toEqual([
        'src/core/config/bad.ts: the foundation imports src/core/tasks, a feature module',
      ]);
      const rootFile = withFile(
        'src/core/clock.ts',
        `import type { Tasks } from './tasks/index.ts';\n${tree.get('src/core/clock.ts')}`,
      );
      expect(checkLayers(rootFile)).toEqual([
        'src/core/clock.ts: the foundation imports src/core/tasks, a feature module',
      ]);
    });

    it('a cycle between modules (through their faces), but not one of type imports', () => {
      const cycle = withFile(
        'src/core/turns/bad.ts',
        "import { Tasks } from '../tasks/index.ts';\nexport const x = Tasks;\n",
      );
      const withTasksImport = new Map([
        ...cycle,
        [
          'src/core/tasks/bad.ts',
          "import { ThreadLeases } from '../turns/index.ts';\nexport const y = ThreadLeases;\n",
        ],
      ]);
      expect(checkLayers(withTasksImport)).toEqual([
        expect.stringMatching(/^module cycle: src\/core\/(tasks|turns) -> .*src\/core\/(tasks|turns)$/),
      ]);
      const typesOnly = new Map([
        ...tree,
        ['src/core/turns/bad.ts', "import type { Tasks } from '../tasks/index.ts';\nexport type X = Tasks;\n"],
        [
          'src/core/tasks/bad.ts',
          "import { ThreadLeases } from '../turns/index.ts';\nexport const y = ThreadLeases;\n",
        ],
      ]);
      expect(checkLayers(typesOnly)).toEqual([]);
    });
  });
  describe('lazy imports name files of ours, so the bundle links them as it links static imports', () => {
    it('hold for the source tree as it is', () => {
      expect(checkLazyImports(tree)).toEqual([]);
    });

    it('a lazy import of a package, but not of a file of ours nor of a computed name', () => {
      const lines = [
        "export const f = async (u: string) => [await import('undici'),",
        "await import('./pinned.ts'), await import(u)];",
      ];
      const bad = withFile('src/core/web/bad.ts', `${lines.join('\n')}\n`);
      expect(checkLazyImports(bad)).toEqual([
        "src/core/web/bad.ts: import('undici') names a package; import a file of ours that imports it statically",
      ]);
    });
  });

  describe('state and time: no module-level state; core reads now only through its Clock', () => {
    it('hold for the source tree as it is', () => {
      expect(checkModuleState(tree)).toEqual([]);
      expect(checkClockReads(tree)).toEqual([]);
    });

    it('a module-level let, and a module-level container that starts empty', () => {
      const bad = withFile(
        'src/core/config/bad.ts',
        [
          'let count = 0;',
          'const seen = new Map<string, number>();',
          'const none = new Set([]);',
          'export const x = () => ++count + seen.size + none.size;',
          '',
        ].join('\n'),
      );
      const why = '(state belongs in an object the assembler builds)';
      expect(checkModuleState(bad)).toEqual([
        `src/core/config/bad.ts: module-level variable count ${why}`,
        `src/core/config/bad.ts: module-level container seen starts empty ${why}`,
        `src/core/config/bad.ts: module-level container none starts empty ${why}`,
      ]);
    });

    it('a constant table is not state', () => {
      const ok = withFile(
        'src/core/config/ok.ts',
        [
          "const KINDS = new Set(['a']);",
          'const LIMITS = { max: 3 };',
          "export const x = () => KINDS.has('a') && LIMITS.max;",
          '',
        ].join('\n'),
      );
      expect(checkModuleState(ok)).toEqual([]);
    });

    it('Date.now(), new Date(), Date.now handed on as a function, and Date(), in a core file', () => {
      const bad = withFile(
        'src/core/config/bad.ts',
        [
          'export const a = Date.now();',
          'export const b = new Date();',
          'export const c = { now: Date.now };',
          'export const d = new Date;',
          'export const e = Date();',
          '',
        ].join('\n'),
      );
      expect(checkClockReads(bad)).toEqual([
        expect.stringMatching(/^src\/core\/config\/bad\.ts:1: Date\.now reads the machine's clock/),
        expect.stringMatching(/^src\/core\/config\/bad\.ts:2: new Date\(\) reads the machine's clock/),
        expect.stringMatching(/^src\/core\/config\/bad\.ts:3: Date\.now reads the machine's clock/),
        expect.stringMatching(/^src\/core\/config\/bad\.ts:4: new Date reads the machine's clock/),
        expect.stringMatching(/^src\/core\/config\/bad\.ts:5: Date\(\) reads the machine's clock/),
      ]);
    });

    it('a Date from a value, and performance.now() for elapsed time, are not clock reads', () => {
      const ok = withFile(
        'src/core/config/ok.ts',
        [
          'export const a = (ms: number) => new Date(ms);',
          'export const b = () => performance.now();',
          "export const c = Date.parse('2026-01-01');",
          '',
        ].join('\n'),
      );
      expect(checkClockReads(ok)).toEqual([]);
    });
  });

  describe('chat commands pick their sub-commands through the one parser (src/core/commands/subcommands.ts)', () => {
    it('holds for the source tree as it is', () => {
      expect(checkSubcommandDispatch(tree)).toEqual([]);
    });

    it.each([
      ['a destructured first word', "const [sub, id] = ctx.args;\nif (sub === 'grants') return;", "sub === 'grants'"],
      [
        'a lower-cased first word',
        "const [first] = ctx.args;\nif (first.toLowerCase() === 'cancel') return;",
        "first.toLowerCase() === 'cancel'",
      ],
      [
        'words of a mapped copy',
        "const [area, action] = ctx.args.map((a) => a.toLowerCase());\nif ('list' === action) return;",
        "'list' === action",
      ],
      ['an index', "if (ctx.args[0]?.toLowerCase() !== 'cancel') return;", "ctx.args[0]?.toLowerCase() !== 'cancel'"],
      ['a switch', "switch (ctx.args[0]) {\n  case 'add':\n}", 'ctx.args[0]'],
      ['a pattern on the text', 'const m = /^add\\s+(.+)$/s.exec(ctx.rest.trim());', '/^add\\s+(.+)$/s'],
      ['a prefix of the text', "if (ctx.rest.startsWith('add ')) return;", "ctx.rest.startsWith('add ')"],
    ])('negative control: %s', (_name, body, shown) => {
      const bad = new Map([['src/core/tasks/bad.ts', `export async function run(ctx: any) {\n${body}\n}\n`]]);
      expect(checkSubcommandDispatch(bad)).toEqual([expect.stringContaining(`src/core/tasks/bad.ts:`)]);
      expect(checkSubcommandDispatch(bad)[0]).toContain(shown);
    });

    it('lets through positional arguments that are no sub-command', () => {
      const ok = [
        'export async function run(ctx: any) {',
        '  const [gateId, ...rest] = ctx.args;',
        "  if (!gateId || rest.join(' ') === '') return ctx.args.length <= 2;",
        "  return /^\\s*$/.test(ctx.rest) || ctx.rest === '';",
        '}',
        '',
      ].join('\n');
      expect(checkSubcommandDispatch(new Map([['src/core/tasks/ok.ts', ok]]))).toEqual([]);
    });
  });
});

// Every program Kazma starts is either inside the bubblewrap sandbox or in docs/spawn-sites.yaml with its
// reason: the checker finds each call site in src/ and fails on one the list does not account for. The
// negative controls add a site each way code can start a program and see the check fail.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSourceTree, type SourceTree } from '../helpers/import-graph.ts';
import { REPO_ROOT } from '../helpers/repo-root.ts';
import { checkSpawnSites, readSpawnList } from '../helpers/spawn-sites.ts';

const tree = readSourceTree(REPO_ROOT);
const list = readSpawnList(join(REPO_ROOT, 'docs/spawn-sites.yaml'));
const withFile = (path: string, text: string): SourceTree => new Map([...tree, [path, text]]);

describe('spawn sites: every program started is listed with its reason', () => {
  it('holds for the source tree as it is', () => {
    expect(list.length).toBeGreaterThan(5);
    expect(checkSpawnSites(tree, list)).toEqual([]);
  });

  describe('negative controls: a new, unlisted way to start a program fails the check', () => {
    it.each([
      [
        'a named import',
        "import { spawn } from 'node:child_process';\nexport function go() { spawn('curl', []); }\n",
        'go: curl',
      ],
      [
        'a renamed import',
        "import { execFile as ef } from 'child_process';\nexport const go = () => ef('sh', ['-c', 'x']);\n",
        'go: sh',
      ],
      [
        'a namespace import',
        "import * as cp from 'node:child_process';\nexport function go() { cp.execFileSync('wget'); }\n",
        'go: wget',
      ],
      [
        'a default import',
        "import cp from 'node:child_process';\nexport function go() { cp.fork('./x.js'); }\n",
        'go: ./x.js',
      ],
      [
        'a promisified spawner',
        "import { execFile } from 'node:child_process';\nimport { promisify } from 'node:util';\n" +
          "const run = promisify(execFile);\nexport async function go() { await run('pip', ['install', 'x']); }\n",
        'go: pip',
      ],
      [
        'a spawner handed on',
        "import { spawn } from 'node:child_process';\nexport const go = (f: (s: typeof spawn) => void) => f(spawn);\n",
        'go: <handed on>',
      ],
      [
        'a dynamic import',
        "export async function go() { const cp = await import('node:child_process'); return cp; }\n",
        "go: 'node:child_process'",
      ],
      [
        'a require',
        "import { createRequire } from 'node:module';\n" +
          "export function go() { return createRequire(import.meta.url)('child_process'); }\n",
        "go: 'child_process'",
      ],
      [
        'an MCP stdio server',
        "import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';\n" +
          "export function go() { return new StdioClientTransport({ command: 'npx', args: [] }); }\n",
        "go: 'npx'",
      ],
    ])('%s', (_, text, site) => {
      expect(checkSpawnSites(withFile('src/core/x/bad.ts', text), list)).toContain(
        `src/core/x/bad.ts ${site} starts a program but is not in docs/spawn-sites.yaml`,
      );
    });

    it('one more call in a listed function', () => {
      const file = 'src/core/skills/agent/fetch.ts';
      const bad = withFile(
        file,
        tree.get(file)!.replace('const what =', "await runContained('git', [], {} as never);\n  const what ="),
      );
      expect(checkSpawnSites(bad, list)).toEqual([
        `${file} fetchSource: git starts a program 2 times; docs/spawn-sites.yaml lists 1`,
      ]);
    });

    it('a site listed as contained that starts its program on the host', () => {
      const file = 'src/core/skills/agent/fetch.ts';
      const text = tree.get(file)!;
      const bad = withFile(
        file,
        `import { execFile } from 'node:child_process';\n${text.replace(/runContained\(\s*'npm'/, "execFile('npm'")}`,
      );
      expect(checkSpawnSites(bad, list)).toEqual([
        `${file} fetchSource: npm is listed as contained: bubblewrap but starts its program directly, not through ` +
          'runContained',
      ]);
    });

    it('a package manager without --ignore-scripts, and a listed site that is gone', () => {
      const file = 'src/core/skills/agent/fetch.ts';
      const bad = withFile(file, tree.get(file)!.replace("'--ignore-scripts', ", ''));
      expect(checkSpawnSites(bad, list)).toEqual([
        `${file} fetchSource: npm runs a package manager without '--ignore-scripts' in its arguments`,
      ]);
      const gone = withFile(
        'src/jobs/redis.ts',
        tree
          .get('src/jobs/redis.ts')!
          .replace(
            /const child = spawn\(\s*binary,/,
            'const child = (null as never as typeof import("node:child_process").spawn)(binary,',
          ),
      );
      expect(checkSpawnSites(gone, list)).toContain(
        'src/jobs/redis.ts startPrivateRedis: binary is listed in docs/spawn-sites.yaml but starts nothing there now',
      );
    });
  });
});

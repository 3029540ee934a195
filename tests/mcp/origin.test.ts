// Stdio MCP servers run outside the sandbox (docs/spawn-sites.yaml) because only an operator decides their
// command: kazma.yaml, or `kazma mcp add` on the command line. This checks that reason holds in the code:
// the only thing that writes any server (McpServerEditor) is named by src/cli/ alone, and nothing else in
// src/ writes the `mcp.servers` setting; the running Kazma holds McpServerSettings, which cannot add one,
// and the web page McpRemoteServers, which adds remote servers only (checked here against a database).
// The negative controls plant each way round it and see the check fail.
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { McpRemoteServers, McpStdioRefusedError } from '../../src/core/mcp/index.ts';
import { RuntimeSettings } from '../../src/core/settings/index.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { readSourceTree, type SourceTree } from '../helpers/import-graph.ts';
import { REPO_ROOT } from '../helpers/repo-root.ts';

const tree = readSourceTree(REPO_ROOT);
const HOME = 'src/core/mcp/server-settings.ts';

/** Where outside src/cli/ a server can be written: the editor named, or `mcp.servers` set directly. */
function serverWriters(files: SourceTree): string[] {
  const found: string[] = [];
  for (const [file, text] of files) {
    if (file === HOME || file === 'src/core/mcp/index.ts') continue;
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
    const visit = (node: ts.Node): void => {
      if (ts.isIdentifier(node) && node.text === 'McpServerEditor' && !file.startsWith('src/cli/'))
        found.push(`${file}: names McpServerEditor`);
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
        const [key] = node.arguments;
        const names =
          key &&
          ((ts.isStringLiteralLike(key) && key.text.toLowerCase().startsWith('mcp.')) ||
            (ts.isIdentifier(key) && /^MCP_/.test(key.text)));
        if (node.expression.name.text === 'set' && names) found.push(`${file}: sets ${key.getText()}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

describe('who can add or change a stdio MCP server', () => {
  it('only the command line: no tool, chat command or other module writes one', () => {
    expect(serverWriters(tree)).toEqual([]);
    expect([...tree].filter(([f, t]) => f.startsWith('src/cli/') && t.includes('new McpServerEditor('))).toHaveLength(
      1,
    );
  });

  it('negative controls: a module that builds the editor, or sets the key itself, is found', () => {
    const planted = new Map(tree);
    planted.set(
      'src/core/commands/planted.ts',
      "import { McpServerEditor } from '../mcp/index.ts';\nexport const e = (o: never) => new McpServerEditor(o);\n",
    );
    planted.set(
      'src/core/tools/builtin/planted.ts',
      "export const go = (s: { set(k: string, v: unknown): void }) => s.set('mcp.servers', []);\n",
    );
    expect(serverWriters(planted)).toEqual([
      'src/core/commands/planted.ts: names McpServerEditor',
      'src/core/commands/planted.ts: names McpServerEditor',
      "src/core/tools/builtin/planted.ts: sets 'mcp.servers'",
    ]);
  });

  it("the web page's McpRemoteServers adds a remote server, never a stdio one nor over a stdio one's name", async () => {
    const database = await freshDatabase('pglite');
    try {
      const settings = new RuntimeSettings(database.db);
      const local = { name: 'local', transport: 'stdio' as const, command: 'node', args: [], env: {} };
      const common = { trust: 'untrusted', enabled: true, sampling: false, elicitation: false } as const;
      const servers = new McpRemoteServers({ settings, yaml: [{ ...common, ...local }] });
      const remote = {
        ...common,
        name: 'remote',
        transport: 'streamable_http',
        url: 'https://mcp.example/mcp',
      } as const;
      await servers.addRemote(remote, 'maya');
      expect((await servers.servers()).map((s) => [s.name, s.transport])).toEqual([
        ['local', 'stdio'],
        ['remote', 'streamable_http'],
      ]);
      await expect(servers.addRemote({ ...remote, name: 'local' }, 'maya')).rejects.toThrow(McpStdioRefusedError);
      const stdio = { ...common, ...local, name: 'sneaky' } as unknown as typeof remote;
      await expect(servers.addRemote(stdio, 'maya')).rejects.toThrow(McpStdioRefusedError);
      expect((await servers.servers()).map((s) => s.name)).toEqual(['local', 'remote']);
    } finally {
      await database.dispose();
    }
  });
});

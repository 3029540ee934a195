// Stdio MCP servers run outside the sandbox (docs/spawn-sites.yaml) because only an operator decides their
// command: kazma.yaml, or `kazma mcp add` on the command line. This checks that reason holds in the code:
// the only thing that writes a server (McpServerEditor) is named by src/cli/ alone, and nothing else in
// src/ writes the `mcp.servers` setting; the running Kazma holds McpServerSettings, which cannot add one.
// The negative controls plant each way round it and see the check fail.
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
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
});

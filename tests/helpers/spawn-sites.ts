// Finds every place Kazma's source starts a program, and checks each against docs/spawn-sites.yaml: the
// written allow-list of call sites with their reasons. A site is a use of anything imported from a module
// that starts processes (child_process, the MCP SDK's stdio transport, cluster, execa, cross-spawn), or of
// a value made from one (`const run = promisify(execFile)`); a dynamic import or require of such a module
// is a site of its own, so no way round the list goes unseen. A call of `runContained` (the shell
// sandbox's runner, src/core/tools/shell/contained.ts) is a site too, one that runs inside bubblewrap:
// only such a site, or the sandbox's own code, may be listed as `contained: bubblewrap`.
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { parse } from 'yaml';
import type { SourceTree } from './import-graph.ts';

const SPAWNING =
  /^(node:)?(child_process|cluster)$|^(execa|cross-spawn)$|^@modelcontextprotocol\/sdk\/client\/stdio(\.js)?$/;
const PACKAGE_MANAGERS = new Set(['npm', 'npx', 'pnpm', 'yarn', 'bun', 'pip', 'pip3']);
/** Functions that start a program inside the bubblewrap sandbox, by the name they are exported under. */
const CONTAINED = new Set(['runContained']);
/** The sandbox's own code: it starts bwrap itself (the probe, the runner every contained program goes through). */
const SANDBOX_DIR = 'src/core/tools/shell/';

/** One call site: the file, the function it is in, the program it starts (a literal, else the expression). */
export interface SpawnSite {
  file: string;
  within: string;
  program: string;
  call: string;
  args: string;
  /** `sandbox` when started through {@link CONTAINED}'s runner; `direct` otherwise. */
  via: 'sandbox' | 'direct';
}

/** One entry of docs/spawn-sites.yaml. */
export interface SpawnEntry {
  file: string;
  within: string;
  program: string;
  count?: number;
  contained: 'bubblewrap' | 'no';
  reason: string;
}

export function readSpawnList(path: string): SpawnEntry[] {
  return (parse(readFileSync(path, 'utf8')) as { sites: SpawnEntry[] }).sites;
}

const enclosing = (node: ts.Node): string => {
  for (let at: ts.Node | undefined = node.parent; at; at = at.parent) {
    if ((ts.isFunctionDeclaration(at) || ts.isMethodDeclaration(at) || ts.isClassDeclaration(at)) && at.name)
      return at.name.getText();
    if ((ts.isArrowFunction(at) || ts.isFunctionExpression(at)) && ts.isVariableDeclaration(at.parent))
      return at.parent.name.getText();
  }
  return '<module>';
};

/** The program a call starts: its first argument (a string's value), or the `command` of an options object. */
function programOf(call: ts.CallExpression | ts.NewExpression): string {
  const first = call.arguments?.[0];
  if (!first) return '<none>';
  if (ts.isStringLiteralLike(first)) return first.text;
  if (ts.isObjectLiteralExpression(first)) {
    const command = first.properties.find((p) => p.name?.getText() === 'command');
    if (command && ts.isPropertyAssignment(command)) return command.initializer.getText();
  }
  return first.getText();
}

/** Every spawn site of one file. */
export function spawnSitesOf(file: string, text: string): SpawnSite[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const bound = new Map<string, string>(); // local name → what it starts with (`execFile`, `cp.*`)
  const sites: SpawnSite[] = [];
  const site = (node: ts.Node, call: string, program: string, args = '') =>
    sites.push({ file, within: enclosing(node), program, call, args, via: CONTAINED.has(call) ? 'sandbox' : 'direct' });
  // The name of a spawning module anywhere but an import declaration (`import(…)`, `require(…)`,
  // `createRequire(…)(…)`, a name kept in a variable) is a way to load it unseen: a site of its own.
  const loads = (node: ts.Node): boolean =>
    ts.isStringLiteralLike(node) &&
    SPAWNING.test(node.text) &&
    !ts.isImportDeclaration(node.parent) &&
    !ts.isExportDeclaration(node.parent);
  // Pass 1: names bound to a spawning module's exports, and values made from them.
  const collect = (node: ts.Node): void => {
    if (
      ts.isImportDeclaration(node) &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      SPAWNING.test(node.moduleSpecifier.text)
    ) {
      const clause = node.importClause;
      if (clause && !clause.isTypeOnly) {
        if (clause.name) bound.set(clause.name.text, '*');
        const named = clause.namedBindings;
        if (named && ts.isNamespaceImport(named)) bound.set(named.name.text, '*');
        if (named && ts.isNamedImports(named)) {
          for (const e of named.elements) if (!e.isTypeOnly) bound.set(e.name.text, (e.propertyName ?? e.name).text);
        }
      }
    }
    // The sandbox's runner, from wherever it is re-exported.
    if (ts.isImportDeclaration(node) && node.importClause?.namedBindings && !node.importClause.isTypeOnly) {
      const named = node.importClause.namedBindings;
      if (ts.isNamedImports(named)) {
        for (const e of named.elements) {
          const exported = (e.propertyName ?? e.name).text;
          if (!e.isTypeOnly && CONTAINED.has(exported)) bound.set(e.name.text, exported);
        }
      }
    }
    ts.forEachChild(node, collect);
  };
  collect(source);
  const mentions = (node: ts.Node): string | undefined => {
    let found: string | undefined;
    const look = (n: ts.Node): void => {
      if (ts.isIdentifier(n) && bound.has(n.text)) found ??= bound.get(n.text);
      if (!found) ts.forEachChild(n, look);
    };
    look(node);
    return found;
  };
  // A value made from a spawner (`const run = promisify(execFile)`, `const go = cp.spawn`) starts programs
  // too: its uses are the sites, the spawner's mention in its initializer is not.
  const consumed = new Set<ts.Node>();
  const alias = (node: ts.Node): void => {
    if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.initializer &&
      !bound.has(node.name.text)
    ) {
      const init = node.initializer;
      const direct = ts.isIdentifier(init)
        ? init
        : ts.isPropertyAccessExpression(init) && ts.isIdentifier(init.expression)
          ? init.expression
          : undefined;
      const handed =
        ts.isCallExpression(init) && !mentions(init.expression) ? init.arguments.find((a) => mentions(a)) : undefined;
      const from = direct && bound.has(direct.text) ? direct : handed;
      if (from) {
        bound.set(node.name.text, mentions(from)!);
        const mark = (n: ts.Node): void => {
          consumed.add(n);
          ts.forEachChild(n, mark);
        };
        mark(from);
      }
    }
    ts.forEachChild(node, alias);
  };
  alias(source);
  // Pass 2: every use of such a name is a site; a bare mention outside a call (handed on) is one too.
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) return;
    if (loads(node)) site(node, 'import', node.getText());
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      const callee = node.expression;
      const name = ts.isIdentifier(callee)
        ? callee.text
        : ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression)
          ? callee.expression.text
          : undefined;
      if (name && bound.has(name)) {
        const what = ts.isPropertyAccessExpression(callee) ? callee.name.text : bound.get(name)!;
        const args = node.arguments?.[1];
        site(node, what, programOf(node), args ? args.getText() : '');
        node.arguments?.forEach(visit);
        return;
      }
    }
    if (ts.isIdentifier(node) && bound.has(node.text) && !isDeclarationName(node) && !consumed.has(node)) {
      site(node, bound.get(node.text)!, '<handed on>');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return sites;
}

const isDeclarationName = (node: ts.Identifier): boolean =>
  (ts.isVariableDeclaration(node.parent) && node.parent.name === node) ||
  ts.isTypeReferenceNode(node.parent) ||
  ts.isTypeQueryNode(node.parent) ||
  ts.isQualifiedName(node.parent);

/** Every spawn site in `tree` that the list does not account for, and every listed site that is gone. */
export function checkSpawnSites(tree: SourceTree, list: readonly SpawnEntry[]): string[] {
  const problems: string[] = [];
  const sites = [...tree]
    .filter(([path]) => path.startsWith('src/'))
    .flatMap(([path, text]) => spawnSitesOf(path, text));
  const key = (s: { file: string; within: string; program: string }) => `${s.file} ${s.within}: ${s.program}`;
  const counts = new Map<string, number>();
  for (const s of sites) counts.set(key(s), (counts.get(key(s)) ?? 0) + 1);
  const listed = new Map(list.map((e) => [key(e), e]));
  for (const [k, n] of counts) {
    const entry = listed.get(k);
    if (!entry) problems.push(`${k} starts a program but is not in docs/spawn-sites.yaml`);
    else if ((entry.count ?? 1) !== n)
      problems.push(`${k} starts a program ${n} times; docs/spawn-sites.yaml lists ${entry.count ?? 1}`);
  }
  // `contained: bubblewrap` is checked, not taken on trust: every such site runs through the sandbox's runner.
  for (const s of sites) {
    const entry = listed.get(key(s));
    if (!entry) continue;
    if (entry.contained === 'bubblewrap' && s.via === 'direct' && !s.file.startsWith(SANDBOX_DIR))
      problems.push(
        `${key(s)} is listed as contained: bubblewrap but starts its program directly, not through runContained`,
      );
    if (entry.contained === 'no' && s.via === 'sandbox')
      problems.push(`${key(s)} runs in the sandbox (runContained) but is listed as contained: no`);
  }
  for (const e of list) {
    if (!counts.has(key(e))) problems.push(`${key(e)} is listed in docs/spawn-sites.yaml but starts nothing there now`);
    if (!['bubblewrap', 'no'].includes(e.contained) || !e.reason?.trim())
      problems.push(`${key(e)}: a listed site says whether it is contained, and why it may run`);
  }
  for (const s of sites.filter((x) => PACKAGE_MANAGERS.has(x.program) && !x.args.includes("'--ignore-scripts'"))) {
    problems.push(`${key(s)} runs a package manager without '--ignore-scripts' in its arguments`);
  }
  return problems;
}

// The layering rules of docs/architecture.md ("Modules and layers"), as human-readable violations. The
// import graph's own rules (platform packages, adapters, file cycles) are in import-graph.ts.
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';
import { importsOf, type SourceTree } from './import-graph.ts';

/** The module a source file belongs to: a folder under src/core or src/adapters, or src/jobs. */
export function moduleOf(path: string): string | undefined {
  const found = /^src\/(core|adapters)\/([^/]+)\//.exec(path);
  if (found) return `src/${found[1]}/${found[2]}`;
  return path.startsWith('src/jobs/') ? 'src/jobs' : undefined;
}

/** Core modules that import no feature module: what every other layer stands on. */
export const FOUNDATION = new Set(['config', 'db', 'log', 'secrets', 'surface'].map((name) => `src/core/${name}`));

/** Files directly in src/core that belong to the foundation (the rest, kazma-core.ts, only name types). */
const FOUNDATION_FILES = /^src\/core\/(errors|clock|with-timeout|package-root|node-flags|doctor)\.ts$/;

/**
 * A module's internal files another module may load lazily (`import()`), each with why: the face would
 * load the whole module at once.
 */
export const LAZY_ENTRIES = new Map([
  ['src/core/agent/checkpoint/checkpointer.ts', 'storage.ts loads LangGraph and pg while the database opens'],
]);

const isFace = (target: string) => /\/(index|module)\.ts$/.test(target) && dirname(target) === moduleOf(target);

interface Edge {
  file: string;
  target: string;
  dynamic: boolean;
  typeOnly: boolean;
}

/** Every relative import of the tree, resolved to a repo path. */
function edgesOf(tree: SourceTree): Edge[] {
  const edges: Edge[] = [];
  for (const [file, text] of tree) {
    const values = new Set(importsOf(file, text));
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, false);
    const visit = (node: ts.Node) => {
      let spec: string | undefined;
      let dynamic = false;
      if (
        (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
        node.moduleSpecifier &&
        ts.isStringLiteral(node.moduleSpecifier)
      )
        spec = node.moduleSpecifier.text;
      else if (
        ts.isCallExpression(node) &&
        node.expression.kind === ts.SyntaxKind.ImportKeyword &&
        node.arguments[0] &&
        ts.isStringLiteral(node.arguments[0])
      ) {
        spec = node.arguments[0].text;
        dynamic = true;
      }
      if (spec?.startsWith('.'))
        edges.push({ file, target: relative('.', resolve(dirname(file), spec)), dynamic, typeOnly: !values.has(spec) });
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return edges;
}

/**
 * A lazy `import()` in src/ names a file of ours (a relative path), never a package: esbuild bundles a
 * package loaded by `import()` as a chunk of its own with its own CommonJS interop (undici became a
 * default export only, so `{ request }` was undefined in dist/ alone). A file of ours that imports the
 * package statically gets the interop every static import has. A computed name (a skill's entry, loaded
 * by Node itself) is not bundled and not checked.
 */
const LAZY_FIX = 'import a file of ours that imports it statically';

export function checkLazyImports(tree: SourceTree): string[] {
  const violations: string[] = [];
  for (const [file, text] of tree) {
    if (!file.startsWith('src/')) continue;
    const visit = (node: ts.Node): void => {
      const lazy = ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword;
      const arg = lazy ? node.arguments[0] : undefined;
      if (arg && ts.isStringLiteralLike(arg) && !arg.text.startsWith('.')) {
        violations.push(`${file}: import('${arg.text}') names a package; ${LAZY_FIX}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, false));
  }
  return violations;
}

/** Every module has a face, other modules import only it, the foundation imports no feature, no module cycle. */
export function checkLayers(tree: SourceTree): string[] {
  const violations: string[] = [];
  const modules = new Set([...tree.keys()].map(moduleOf).filter((m): m is string => !!m));
  for (const module of modules)
    if (!tree.has(`${module}/index.ts`)) violations.push(`${module}: has no index.ts (its public face)`);
  const moduleEdges = new Map<string, Set<string>>();
  for (const { file, target, dynamic, typeOnly } of edgesOf(tree)) {
    const from = moduleOf(file);
    const to = moduleOf(target);
    if (!to || from === to || !file.startsWith('src/')) continue;
    const lazy = dynamic && LAZY_ENTRIES.has(target);
    if (!isFace(target) && !lazy) violations.push(`${file}: imports ${target}, inside ${to}; import ${to}/index.ts`);
    const foundation = (from && FOUNDATION.has(from)) || FOUNDATION_FILES.test(file);
    if (foundation && !FOUNDATION.has(to)) violations.push(`${file}: the foundation imports ${to}, a feature module`);
    if (from && !typeOnly) moduleEdges.set(from, (moduleEdges.get(from) ?? new Set()).add(to));
  }
  for (const cycle of moduleCycles(moduleEdges)) violations.push(`module cycle: ${cycle.join(' -> ')}`);
  return violations;
}

/** One cycle through each strongly connected group of modules (value imports only: types erase). */
function moduleCycles(edges: Map<string, Set<string>>): string[][] {
  const cycles: string[][] = [];
  const done = new Set<string>();
  for (const start of [...edges.keys()].sort()) {
    const path = pathBack(edges, start, start);
    if (path && !path.some((m) => done.has(m))) {
      cycles.push([start, ...path]);
      for (const m of path) done.add(m);
    }
  }
  return cycles;
}

/** The shortest module path from `from`'s imports back to `to` (breadth first), or undefined. */
function pathBack(edges: Map<string, Set<string>>, from: string, to: string): string[] | undefined {
  const previous = new Map<string, string>();
  const queue = [...(edges.get(from) ?? [])];
  for (const m of queue) previous.set(m, from);
  while (queue.length) {
    const at = queue.shift()!;
    if (at === to) {
      const path = [at];
      for (let m = previous.get(at)!; m !== from; m = previous.get(m)!) path.unshift(m);
      return path;
    }
    for (const next of edges.get(at) ?? []) if (!previous.has(next)) previous.set(next, at), queue.push(next);
  }
  return undefined;
}

// Finds a test source file that works the repository's root out itself, for
// tests/foundation/test-conventions.test.ts: tests take it from REPO_ROOT (tests/helpers/repo-root.ts).
// Working it out is a path from the file's own place that climbs up to the root (a URL relative to
// import.meta.url; resolve or join from import.meta.dirname, __dirname or the folder of import.meta.url),
// the working directory taken for it (process.cwd(), or a relative path handed to the file system), or the
// build scripts' own ROOT (bin/dist-state.js).
import ts from 'typescript';

/** A place in a file that works the repository's root out itself: where, and its text. */
export interface RootComputation {
  line: number;
  text: string;
}

/** How far up a relative path climbs before it names anything: `../../bin` → 2, `./fixtures/x.ts` → 0. */
function climbs(segments: string[]): number {
  let up = 0;
  for (const segment of segments.flatMap((s) => s.split('/'))) {
    if (segment === '..') up++;
    else if (segment !== '.' && segment !== '') break;
  }
  return up;
}

const isImportMeta = (node: ts.Node, property: string) =>
  ts.isPropertyAccessExpression(node) && ts.isMetaProperty(node.expression) && node.name.text === property;

/** The name a call is made by: `resolve(…)` and `path.resolve(…)` are both `resolve`. */
const calleeName = (call: ts.CallExpression) =>
  ts.isIdentifier(call.expression)
    ? call.expression.text
    : ts.isPropertyAccessExpression(call.expression)
      ? call.expression.name.text
      : undefined;

/** This file's folder: import.meta.dirname, __dirname or dirname(fileURLToPath(import.meta.url)). */
function isOwnFolder(node: ts.Node): boolean {
  if (isImportMeta(node, 'dirname') || (ts.isIdentifier(node) && node.text === '__dirname')) return true;
  if (!ts.isCallExpression(node) || calleeName(node) !== 'dirname') return false;
  const [inner] = node.arguments;
  return Boolean(
    inner &&
      ts.isCallExpression(inner) &&
      calleeName(inner) === 'fileURLToPath' &&
      inner.arguments[0] &&
      isImportMeta(inner.arguments[0], 'url'),
  );
}

/** File-system calls whose first argument is a path: handed a relative one, they take it from the working directory. */
const FS_CALLS = new Set(
  ['readFile', 'readdir', 'stat', 'lstat', 'access', 'exists', 'writeFile', 'mkdir', 'rm', 'cp'].flatMap((n) => [
    n,
    `${n}Sync`,
  ]),
);

const isText = (node: ts.Node): node is ts.StringLiteral | ts.NoSubstitutionTemplateLiteral =>
  ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node);

/**
 * Where `source`, the file at `path` (relative to the repository), works the repository's root out itself.
 * A path from the file's place counts when it climbs as many folders as the file is deep, or more.
 */
export function repoRootComputationsIn(source: string, path: string): RootComputation[] {
  const file = ts.createSourceFile(path, source, ts.ScriptTarget.ES2022, true);
  const depth = path.split('/').length - 1;
  const found: RootComputation[] = [];
  const at = (node: ts.Node) =>
    found.push({ line: file.getLineAndCharacterOfPosition(node.getStart()).line + 1, text: node.getText(file) });
  const visit = (node: ts.Node): void => {
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'URL') {
      const [spec, base] = node.arguments ?? [];
      if (spec && base && isText(spec) && isImportMeta(base, 'url') && climbs([spec.text]) >= depth) at(node);
    }
    if (ts.isCallExpression(node)) {
      const name = calleeName(node);
      const [from, ...rest] = node.arguments;
      if (
        (name === 'resolve' || name === 'join') &&
        from &&
        isOwnFolder(from) &&
        rest.every(isText) &&
        climbs(rest.map((r) => (r as ts.StringLiteral).text)) >= depth
      )
        at(node);
      if (name && FS_CALLS.has(name) && from && isText(from) && !from.text.startsWith('/')) at(node);
      if (
        name === 'cwd' &&
        ts.isPropertyAccessExpression(node.expression) &&
        node.expression.expression.getText(file) === 'process'
      )
        at(node);
    }
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const bindings = node.importClause?.namedBindings;
      if (
        /(^|\/)bin\/dist-state\.js$/.test(node.moduleSpecifier.text) &&
        bindings &&
        ts.isNamedImports(bindings) &&
        bindings.elements.some((e) => (e.propertyName ?? e.name).text === 'ROOT')
      )
        at(node);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

// Finds hand-written polling loops — a loop that sleeps between two looks — in a test source file, for
// tests/foundation/test-conventions.test.ts. Tests wait with `eventually` (tests/helpers/eventually.ts),
// which says on timeout what was awaited and what was last seen; a loop of its own says neither.
import ts from 'typescript';

/** One loop that awaits a sleep in its body: where it starts, and its first line. */
export interface PollingLoop {
  line: number;
  text: string;
}

const TIMER_MODULES = new Set(['node:timers/promises', 'timers/promises']);

/** Whether `node` calls `setTimeout` (or another of `names`) anywhere inside it. */
function callsAny(node: ts.Node, names: ReadonlySet<string>): boolean {
  if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && names.has(node.expression.text)) return true;
  return ts.forEachChild(node, (child) => callsAny(child, names) || undefined) ?? false;
}

/**
 * The names in the file that sleep when called: `setTimeout` itself, an import of it from
 * `timers/promises` under another name, and a function of the file's own built on it
 * (`const sleep = (ms) => new Promise((r) => setTimeout(r, ms))`).
 */
function sleepers(file: ts.SourceFile): Set<string> {
  const names = new Set(['setTimeout']);
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const bindings = node.importClause?.namedBindings;
      if (TIMER_MODULES.has(node.moduleSpecifier.text) && bindings && ts.isNamedImports(bindings))
        for (const element of bindings.elements)
          if ((element.propertyName ?? element.name).text === 'setTimeout') names.add(element.name.text);
    }
    const fn =
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.initializer &&
      (ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer))
        ? { name: node.name.text, body: node.initializer }
        : ts.isFunctionDeclaration(node) && node.name && node.body
          ? { name: node.name.text, body: node.body }
          : undefined;
    if (fn && callsAny(fn.body, names)) names.add(fn.name);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return names;
}

/**
 * Whether the loop's own body awaits a sleep. A function defined inside it is not the loop waiting, and a
 * loop inside it is reported as itself.
 */
function awaitsSleep(body: ts.Node, names: ReadonlySet<string>): boolean {
  const visit = (node: ts.Node): boolean => {
    if (ts.isAwaitExpression(node)) return callsAny(node.expression, names);
    if (ts.isFunctionLike(node) || ts.isIterationStatement(node, false)) return false;
    return ts.forEachChild(node, (child) => visit(child) || undefined) ?? false;
  };
  return visit(body);
}

/** Every loop in `source` that sleeps between two looks. */
export function pollingLoopsIn(source: string, fileName = 'test.ts'): PollingLoop[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const names = sleepers(file);
  const found: PollingLoop[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isIterationStatement(node, false) && awaitsSleep(node.statement, names)) {
      const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
      found.push({ line: line + 1, text: node.getText(file).split('\n')[0]!.trim() });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

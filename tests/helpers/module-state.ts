// Two rules of docs/architecture.md that keep state where a reader can see it: no module holds mutable
// state of its own (it lives in objects the composition root builds and hands down), and core reads
// the time only through its Clock (so a test can move it).
import ts from 'typescript';
import type { SourceTree } from './import-graph.ts';

/**
 * Module-level caches allowed, each with why it is not state: a memo of a pure function of its key gives
 * the same answers without it.
 */
export const MEMOS = new Map([
  ['src/core/agent/graph/context-window.ts:counted', "a message's token estimate, a pure function of the message"],
  ['src/core/tools/specs.ts:specs', "a tool definition's JSON schema, a pure function of the definition"],
  ['src/core/db/prepared.ts:BUILT', 'a statement built once per database handle; building it again gives the same SQL'],
  [
    'src/core/decisions/compare-and-set.ts:statements',
    "a table's compare-and-set statement, a pure function of the table",
  ],
  [
    'src/core/schedules/zoned.ts:formatters',
    'an Intl.DateTimeFormat per time zone (costly to build), a pure function of the zone',
  ],
]);

const CONTAINERS = /^(Map|WeakMap|Set|WeakSet|WeakRef|Array)$/;

/** Module-level `let`/`var`, and module-level containers that start empty (filled later: state). */
export function checkModuleState(tree: SourceTree): string[] {
  const violations: string[] = [];
  for (const [file, text] of tree) {
    if (!file.startsWith('src/')) continue;
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, false);
    for (const statement of source.statements) {
      if (!ts.isVariableStatement(statement)) continue;
      const mutable = !(statement.declarationList.flags & ts.NodeFlags.Const);
      for (const declaration of statement.declarationList.declarations) {
        const name = declaration.name.getText(source);
        if (MEMOS.has(`${file}:${name}`)) continue;
        if (mutable)
          violations.push(`${file}: module-level variable ${name} (state belongs in an object the assembler builds)`);
        else if (declaration.initializer && startsEmpty(declaration.initializer))
          violations.push(
            `${file}: module-level container ${name} starts empty (state belongs in an object the assembler builds)`,
          );
      }
    }
  }
  return violations;
}

/** `new Map()`, `new WeakMap()`, `new Set()` with no entries given, `[]`, `{}`: a container filled later. */
function startsEmpty(init: ts.Expression): boolean {
  if (ts.isNewExpression(init) && ts.isIdentifier(init.expression) && CONTAINERS.test(init.expression.text)) {
    const [first] = init.arguments ?? [];
    return !first || (ts.isArrayLiteralExpression(first) && first.elements.length === 0);
  }
  if (ts.isArrayLiteralExpression(init)) return init.elements.length === 0;
  return ts.isObjectLiteralExpression(init) && init.properties.length === 0;
}

/** Where core may read the machine's clock itself: the Clock that everything else is handed. */
export const CLOCK_READS = new Map([['src/core/clock.ts', 'systemClock: the one source of now']]);

/**
 * The machine's clock read in src/core outside {@link CLOCK_READS}: `Date.now` (called, or handed on as a
 * function), `new Date()` with no argument, `Date()`. Core reads now through its Clock; elapsed time
 * (deadlines, throttles, renewals) is measured with the monotonic `performance.now()`, which is not "now".
 */
export function checkClockReads(tree: SourceTree): string[] {
  const violations: string[] = [];
  for (const [file, text] of tree) {
    if (!file.startsWith('src/core/') || CLOCK_READS.has(file)) continue;
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
    const visit = (node: ts.Node) => {
      const dateNow = ts.isPropertyAccessExpression(node) && node.getText(source) === 'Date.now';
      const newDate = ts.isNewExpression(node) && node.expression.getText(source) === 'Date' && !node.arguments?.length;
      const dateCall = ts.isCallExpression(node) && node.expression.getText(source) === 'Date';
      if (dateNow || newDate || dateCall) {
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        violations.push(
          `${file}:${line}: ${node.getText(source)} reads the machine's clock; take a Clock (or performance.now() for elapsed time)`,
        );
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return violations;
}

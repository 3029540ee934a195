// A chat command picks its sub-command through the one parser (runSubcommands, src/core/commands/subcommands.ts),
// never by hand. "By hand" is read from the syntax: a word of a command's arguments (`ctx.args[0]`, or a name
// destructured from `ctx.args`) compared with a string or switched on, or its text (`ctx.rest`) matched
// against a pattern or a prefix that starts with a word.
import ts from 'typescript';
import type { SourceTree } from './import-graph.ts';

/** The parser itself, which is where the first word is looked up. */
const PARSER = 'src/core/commands/subcommands.ts';

const COMPARISONS = new Set([
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
]);

/** `x.args` / `x?.args`, and `x.rest` for `property = 'rest'`. */
const isProperty = (node: ts.Node, property: string) =>
  ts.isPropertyAccessExpression(node) && node.name.text === property;

/** The expression under case changes, trims, `!` and parentheses: `first?.toLowerCase()` → `first`. */
function bare(node: ts.Expression): ts.Expression {
  if (ts.isParenthesizedExpression(node) || ts.isNonNullExpression(node)) return bare(node.expression);
  if (
    ts.isCallExpression(node) &&
    ts.isPropertyAccessExpression(node.expression) &&
    ['toLowerCase', 'toUpperCase', 'toLocaleLowerCase', 'trim'].includes(node.expression.name.text)
  )
    return bare(node.expression.expression);
  return node;
}

/** `ctx.args` itself, or a call on it (`ctx.args.map(…)`). */
function fromArgs(node: ts.Expression): boolean {
  const inner = bare(node);
  if (isProperty(inner, 'args')) return true;
  return (
    ts.isCallExpression(inner) &&
    ts.isPropertyAccessExpression(inner.expression) &&
    fromArgs(inner.expression.expression)
  );
}

/** Where `text` picks a sub-command by hand, as `path:line: what`. */
function handDispatchIn(path: string, text: string): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true);
  const words = new Set<string>();
  const found: string[] = [];
  const at = (node: ts.Node, what: string) =>
    found.push(`${path}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${what}`);
  const isWord = (node: ts.Expression) => {
    const inner = bare(node);
    return (
      (ts.isIdentifier(inner) && words.has(inner.text)) ||
      (ts.isElementAccessExpression(inner) && isProperty(inner.expression, 'args'))
    );
  };
  const isString = (node: ts.Expression) => ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node);
  const visit = (node: ts.Node) => {
    if (ts.isVariableDeclaration(node) && ts.isArrayBindingPattern(node.name) && node.initializer)
      if (fromArgs(node.initializer))
        for (const element of node.name.elements)
          if (ts.isBindingElement(element) && !element.dotDotDotToken && ts.isIdentifier(element.name))
            words.add(element.name.text);
    if (ts.isBinaryExpression(node) && COMPARISONS.has(node.operatorToken.kind)) {
      const { left, right } = node;
      if ((isWord(left) && isString(right)) || (isWord(right) && isString(left)))
        at(node, `compares a word of the arguments with a string (${node.getText(source)})`);
    }
    if (ts.isSwitchStatement(node) && isWord(node.expression))
      at(node, `switches on a word of the arguments (${node.expression.getText(source)})`);
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.arguments[0] &&
      isProperty(bare(node.arguments[0]), 'rest')
    ) {
      const pattern = node.expression.expression;
      if (ts.isRegularExpressionLiteral(pattern) && /^\/\^[A-Za-z]/.test(pattern.text))
        at(node, `matches the text against a pattern that starts with a word (${pattern.text})`);
    }
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'startsWith' &&
      isProperty(bare(node.expression.expression), 'rest')
    )
      at(node, `looks for a word at the start of the text (${node.getText(source)})`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.map((f) => `${f}; pick sub-commands with runSubcommands (${PARSER})`);
}

/** Every place in src/ that picks a command's sub-command by hand. */
export function checkSubcommandDispatch(tree: SourceTree): string[] {
  return [...tree]
    .filter(([path]) => path.startsWith('src/') && path !== PARSER)
    .flatMap(([path, text]) => handDispatchIn(path, text));
}

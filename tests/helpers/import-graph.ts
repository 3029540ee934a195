import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** Source files by repo-relative path (`src/core/x.ts`) → text. */
export type SourceTree = Map<string, string>;

export function readSourceTree(root: string, dir = 'src'): SourceTree {
  const tree: SourceTree = new Map();
  const walk = (current: string) => {
    for (const entry of readdirSync(join(root, current), { withFileTypes: true })) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.tsx?$/.test(entry.name)) tree.set(path, readFileSync(join(root, path), 'utf8'));
    }
  };
  walk(dir);
  return tree;
}

/** Value imports of one file (type-only imports erase at run time and cannot form a real cycle). */
export function importsOf(path: string, text: string): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, false);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && !node.importClause?.isTypeOnly && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (
      ts.isExportDeclaration(node) &&
      !node.isTypeOnly &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteral(arg)) found.push(arg.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const PLATFORM_PACKAGES = /^(grammy|@grammyjs\/|discord\.js|@discordjs\/|@slack\/|hono|@hono\/|bullmq)/;

/** Each platform SDK belongs to one adapter folder; the queue library and its Redis client to src/jobs. */
const OWNED_PACKAGES: Array<{ pattern: RegExp; owner: string; what: string }> = [
  { pattern: /^(grammy|@grammyjs\/)/, owner: 'src/adapters/telegram/', what: 'the Telegram SDK' },
  { pattern: /^(discord\.js|@discordjs\/)/, owner: 'src/adapters/discord/', what: 'the Discord SDK' },
  { pattern: /^@slack\//, owner: 'src/adapters/slack/', what: 'the Slack SDK' },
  { pattern: /^(bullmq|ioredis)$/, owner: 'src/jobs/', what: 'the queue library' },
];

/** Every rule the layout promises (docs/architecture.md), as human-readable violations. */
export function checkImportGraph(tree: SourceTree): string[] {
  const violations: string[] = [];
  const edges = new Map<string, string[]>();
  for (const [file, text] of tree) {
    const local: string[] = [];
    for (const spec of importsOf(file, text)) {
      const target = spec.startsWith('.') ? relative('.', resolve(dirname(file), spec)) : undefined;
      if (file.startsWith('src/core/')) {
        if (!target && PLATFORM_PACKAGES.test(spec))
          violations.push(`${file}: core imports platform/queue package "${spec}"`);
        if (target && !target.startsWith('src/core/'))
          violations.push(`${file}: core imports ${target} (core imports nothing outside src/core)`);
      }
      const adapter = /^src\/adapters\/([^/]+)\//.exec(file)?.[1];
      if (adapter && target) {
        const other = /^src\/adapters\/([^/]+)\//.exec(target)?.[1];
        if (other && other !== adapter)
          violations.push(`${file}: adapter "${adapter}" imports adapter "${other}" (${target})`);
        if (target.startsWith('src/jobs/'))
          violations.push(`${file}: adapter "${adapter}" imports ${target} (adapters never import jobs)`);
      }
      if (file.startsWith('src/jobs/') && target?.startsWith('src/adapters/'))
        violations.push(`${file}: jobs import adapter ${target}`);
      for (const owned of OWNED_PACKAGES) {
        if (!target && owned.pattern.test(spec) && !file.startsWith(owned.owner))
          violations.push(`${file}: imports ${owned.what} "${spec}", which only ${owned.owner} may import`);
      }
      if (target && tree.has(target)) local.push(target);
    }
    edges.set(file, local);
  }
  for (const cycle of findCycles(edges)) violations.push(`import cycle: ${cycle.join(' -> ')}`);
  return violations;
}

/** Strongly connected components with more than one file (or a file importing itself): Tarjan. */
function findCycles(edges: Map<string, string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const connect = (node: string) => {
    indices.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!indices.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, indices.get(next)!));
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (edges.get(node) ?? []).includes(node))
        cycles.push([...component.reverse(), component[0]!]);
    }
  };
  for (const node of edges.keys()) if (!indices.has(node)) connect(node);
  return cycles;
}

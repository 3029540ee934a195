import type { z } from 'zod';
import { didYouMean } from './did-you-mean.ts';
import { wordingFor } from './wording.ts';

/**
 * Turns zod issues into `key.path: reason` lines in the project's words (`input` is what was parsed,
 * so a reason can say what the file holds); unknown keys get a did-you-mean when one is close.
 */
export function describeIssues(error: z.ZodError, schema: z.ZodType, input?: unknown): string[] {
  return error.issues.flatMap((issue) => {
    const path = formatPath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      const known = shapeKeysAt(schema, issue.path);
      return issue.keys.map((key) => {
        const full = path ? `${path}.${key}` : key;
        const guess = didYouMean(key, known);
        return `${full}: unknown key${guess ? ` (did you mean "${guess}"?)` : ''}`;
      });
    }
    return [`${path || '(root)'}: ${wordingFor(issue, input)}`];
  });
}

export function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? String(part) : `.${String(part)}`))
    .join('');
}

/** Walks an object schema (through defaults, pipes, arrays) to list the keys allowed at `path`. */
function shapeKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let node: unknown = schema;
  for (const part of [...path, undefined]) {
    node = unwrap(node);
    if (part === undefined) break;
    const def = (node as { def?: { type?: string; shape?: Record<string, unknown>; element?: unknown } }).def;
    if (typeof part === 'number' && def?.type === 'array') node = def.element;
    else if (def?.shape) node = def.shape[String(part)];
    else return [];
  }
  const shape = (node as { def?: { shape?: Record<string, unknown> } } | undefined)?.def?.shape;
  return shape ? Object.keys(shape) : [];
}

function unwrap(node: unknown): unknown {
  for (let i = 0; i < 10; i++) {
    const def = (node as { def?: { type?: string; innerType?: unknown; in?: unknown } } | undefined)?.def;
    if (def?.innerType) node = def.innerType;
    else if (def?.type === 'pipe') node = def.in;
    else return node;
  }
  return node;
}

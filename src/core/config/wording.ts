import type { z } from 'zod';
import { ellipsis } from '../surface/index.ts';

type Issue = z.core.$ZodIssue;

const KINDS: Record<string, string> = {
  array: 'a list, e.g. [first, second]',
  object: 'a section of `key: value` lines',
  boolean: 'true or false',
  string: 'text',
  number: 'a number',
  int: 'a whole number',
};

/**
 * Zod's own wording ("Invalid input: expected array, received string") in the project's: what was
 * expected, with an example, and what the file holds. Messages the schema wrote itself are kept.
 */
export function ownWords(issue: Issue, value: unknown): string {
  switch (issue.code) {
    case 'invalid_type': {
      if (value === undefined) return 'required, but missing';
      return `expected ${KINDS[issue.expected] ?? issue.expected}, got ${shown(value)}`;
    }
    case 'invalid_value':
      return `expected one of ${issue.values.map((v) => String(v)).join(', ')}; got ${shown(value)}`;
    case 'too_small':
      return issue.origin === 'array'
        ? `expected at least ${String(issue.minimum)} entries`
        : issue.origin === 'string'
          ? Number(issue.minimum) === 1
            ? 'must not be empty'
            : `expected at least ${String(issue.minimum)} characters`
          : `expected ${String(issue.minimum)} or more, got ${shown(value)}`;
    case 'too_big':
      return issue.origin === 'array'
        ? `expected at most ${String(issue.maximum)} entries`
        : issue.origin === 'string'
          ? `expected at most ${String(issue.maximum)} characters`
          : `expected ${String(issue.maximum)} or less, got ${shown(value)}`;
    case 'invalid_format':
      return isDefault(issue.message)
        ? `expected ${issue.format === 'url' ? 'a URL, e.g. https://example.com' : `a ${issue.format}`}, got ` +
            `${shown(value)}`
        : issue.message;
    default:
      return issue.message;
  }
}

// Zod's defaults start like this; a message the schema wrote itself does not.
function isDefault(message: string): boolean {
  return /^(Invalid|Too (small|big))/.test(message);
}

function shown(value: unknown): string {
  if (typeof value === 'string') return `"${ellipsis(value, 40)}"`;
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'nothing (null)';
  if (typeof value === 'object') return 'a section';
  return String(value);
}

/** The value at `path` in the parsed YAML, for saying what the file holds. */
export function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let node = input;
  for (const part of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<PropertyKey, unknown>)[part];
  }
  return node;
}

/** Only zod's default wording is replaced: messages written in the schema are the project's already. */
export function wordingFor(issue: Issue, input: unknown): string {
  return isDefault(issue.message) ? ownWords(issue, valueAt(input, issue.path)) : issue.message;
}

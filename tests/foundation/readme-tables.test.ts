// The reference tables are kept in step with the program: docs/configuration.md documents every key of the
// configuration schema (and no key that does not exist), docs/cli.md every subcommand (and no other). A
// key documented only by a wildcard row (`telegram.*`) does not count. (The tables lived in the README
// until the reference moved to docs/; the file keeps its name.)
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { configSchema } from '../../src/core/config/schema.ts';
import { REPO_ROOT } from '../helpers/repo-root.ts';

const CONFIGURATION = readFileSync(`${REPO_ROOT}/docs/configuration.md`, 'utf8');
const CLI = readFileSync(`${REPO_ROOT}/docs/cli.md`, 'utf8');

/** The rows of every table in `text` whose header's first cell is `first`, as arrays of cells. */
function tableRows(text: string, first: string): string[][] {
  const rows: string[][] = [];
  const lines = text.split('\n');
  const cells = (line: string) =>
    line
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((c) => c.trim());
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.startsWith('|') || cells(lines[i]!)[0] !== first || !lines[i + 1]?.startsWith('|---')) continue;
    for (i += 2; i < lines.length && lines[i]!.startsWith('|'); i++) rows.push(cells(lines[i]!));
  }
  return rows;
}

const ticks = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
};
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (;;) {
    const def = defOf(s);
    if (def.innerType && ['default', 'prefault', 'optional', 'nullable', 'catch', 'readonly'].includes(def.type))
      s = def.innerType;
    else if (def.type === 'pipe' && def.in) s = def.in;
    else return s;
  }
}

/** Every leaf key of the schema (`http.port`); a list of objects is one leaf (its row names its fields). */
function leaves(schema: z.ZodType, prefix = ''): string[] {
  const def = defOf(unwrap(schema));
  if (def.type !== 'object' || !def.shape) return [prefix];
  return Object.entries(def.shape).flatMap(([key, child]) => leaves(child, prefix ? `${prefix}.${key}` : key));
}

/** The keys a README cell names: `a.b` / `.c` means `a.b` and `a.c`. */
function keysIn(cell: string): string[] {
  const out: string[] = [];
  let parent = '';
  for (const token of ticks(cell)) {
    if (token.startsWith('.') && parent) out.push(`${parent}${token}`);
    else if (/^[a-z_]+(\.[a-z_<>*[\]]+)*$/.test(token)) {
      out.push(token);
      parent = token.includes('.') ? token.slice(0, token.lastIndexOf('.')) : '';
    }
  }
  return out;
}

function matches(documented: string, key: string): boolean {
  const pattern = documented.replace(/[.[\]]/g, (c) => `\\${c}`).replace(/<[a-z_]+>/g, '[a-z_]+');
  return new RegExp(`^${pattern}$`).test(key);
}

describe('the reference tables in docs/', () => {
  it('the configuration table documents every key of the schema, by name, and only keys that exist', () => {
    const documented = tableRows(CONFIGURATION, 'key')
      .flatMap((row) => keysIn(row[0]!))
      .filter((k) => !k.endsWith('.*'));
    const keys = leaves(configSchema as unknown as z.ZodType);
    expect(keys.length).toBeGreaterThan(40);
    // `access.operators[].api_token` documents a field of the list `access.operators`.
    const base = (d: string) => (d.includes('[]') ? d.slice(0, d.indexOf('[]')) : d);
    const missing = keys.filter((key) => !documented.some((d) => matches(base(d), key)));
    expect(missing, 'keys in the schema that docs/configuration.md does not name').toEqual([]);
    const unknown = documented.filter((d) => !keys.some((key) => matches(base(d), key)));
    expect(unknown, 'docs/configuration.md rows naming keys that do not exist').toEqual([]);
  });

  it('the command table lists every subcommand, and only those', () => {
    const rows = tableRows(CLI, 'command').map((row) => ticks(row[0]!)[0] ?? '');
    // Read, not imported: importing the CLI's entry point would run it.
    const cli = readFileSync(`${REPO_ROOT}/src/cli/index.ts`, 'utf8');
    const names = [...cli.matchAll(/^\s+'?([a-z][a-z -]*)'?: async \(\) =>/gm)].map((m) => m[1]!);
    expect(names).toContain('config check');
    const documented = rows
      .filter((r) => r.startsWith('kazma ') && !r.startsWith('kazma -'))
      .map((r) => {
        const words = r.slice('kazma '.length).split(/\s+/);
        return names.find((n) => n === words.slice(0, 2).join(' ')) ?? words[0]!;
      });
    expect([...new Set(documented)].sort()).toEqual([...names].sort());
    expect(documented.length, 'a command listed twice').toBe(new Set(documented).size);
  });
});

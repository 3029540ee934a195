import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted at every depth, so `{a, b}` and `{b, a}` encode the same. Values go
 * through JSON.stringify's own rules first (undefined properties dropped, Dates as ISO strings,
 * NaN/Infinity as null), which is what the model's arguments look like on the wire anyway.
 * `undefined` at the top level encodes as `null`.
 *
 * @example
 * canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] }) // '{"a":[{"c":3,"d":2}],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  const plain: unknown = JSON.parse(JSON.stringify(value) ?? 'null');
  return JSON.stringify(sortKeys(plain));
}

/**
 * sha256 (hex) of {@link canonicalJson}: the `args_hash` of an effect receipt. A replayed call must
 * present the same hash, which catches a tool_call id reused for different arguments.
 *
 * @example
 * canonicalArgsHash({ path: 'a.txt', text: 'x' }) === canonicalArgsHash({ text: 'x', path: 'a.txt' }) // true
 */
export function canonicalArgsHash(args: unknown): string {
  return createHash('sha256').update(canonicalJson(args)).digest('hex');
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  // No prototype, so a "__proto__" key stays an ordinary key instead of silently vanishing.
  const sorted: Record<string, unknown> = Object.create(null);
  // Default sort compares UTF-16 code units: locale-independent, so every process agrees.
  for (const key of Object.keys(value).sort()) sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  return sorted;
}

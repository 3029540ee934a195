import { z } from 'zod';

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Parses `250ms`, `30s`, `30m`, `2h`, `1d` (or a bare number of milliseconds) into milliseconds. */
export function parseDuration(text: string | number): number | undefined {
  if (typeof text === 'number') return Number.isFinite(text) && text >= 0 ? text : undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(text);
  if (!match) return undefined;
  const unit = (match[2] ?? 'ms') as keyof typeof UNIT_MS;
  return Math.round(Number(match[1]) * UNIT_MS[unit]);
}

/** A zod field for durations; the parsed value is milliseconds, and never shorter than `min` when given. */
export function duration(fallback: string, options: { min?: string } = {}) {
  const min = options.min === undefined ? 0 : parseDuration(options.min)!;
  return z
    .union([z.string(), z.number()])
    .default(fallback)
    .transform((value, ctx) => {
      const ms = parseDuration(value);
      if (ms === undefined) {
        ctx.addIssue({ code: 'custom', message: `"${value}" is not a duration (use e.g. 30s, 30m, 2h)` });
        return z.NEVER;
      }
      if (ms < min) {
        ctx.addIssue({ code: 'custom', message: `expected ${options.min} or longer, got "${value}"` });
        return z.NEVER;
      }
      return ms;
    });
}

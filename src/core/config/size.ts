import { z } from 'zod';

const UNIT_BYTES = { KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 } as const;

/** Parses `512MB`, `2GB`, `64KB` (binary units, case-insensitive) into bytes. */
export function parseSize(text: string): number | undefined {
  const match = /^\s*(\d+)\s*(KB|MB|GB)\s*$/i.exec(text);
  if (!match) return undefined;
  return Number(match[1]) * UNIT_BYTES[match[2]!.toUpperCase() as keyof typeof UNIT_BYTES];
}

/** A zod field for a size such as `512MB`; the parsed value is bytes, never less than `min`. */
export function size(fallback: string, options: { min: string }) {
  const min = parseSize(options.min)!;
  return z
    .string()
    .default(fallback)
    .transform((value, ctx) => {
      const bytes = parseSize(value);
      if (bytes === undefined) {
        ctx.addIssue({ code: 'custom', message: `"${value}" is not a size (use e.g. 512MB or 2GB)` });
        return z.NEVER;
      }
      if (bytes < min) {
        ctx.addIssue({ code: 'custom', message: `expected ${options.min} or more, got "${value}"` });
        return z.NEVER;
      }
      return bytes;
    });
}

import type { z } from 'zod';
import type { ToolDefinition } from './define.ts';

/** Outcome of validating a model's arguments against a tool's schema. */
export type ParsedArgs<S extends z.ZodObject = z.ZodObject> =
  | { ok: true; args: z.output<S> }
  | { ok: false; error: string };

/**
 * Validates raw arguments (an object, or the JSON text some providers send) for `tool`.
 * The error names each bad field and why, phrased so the model can fix the call and retry.
 */
export function parseToolArgs<S extends z.ZodObject>(tool: ToolDefinition<S>, raw: unknown): ParsedArgs<S> {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = raw.trim() === '' ? {} : JSON.parse(raw);
    } catch {
      return { ok: false, error: invalid(tool.name, ['arguments are not valid JSON']) };
    }
  }
  // Providers send null or nothing for a call without arguments; the schema decides if that is fine.
  if (value === undefined || value === null) value = {};
  const result = tool.input.safeParse(value);
  if (result.success) return { ok: true, args: result.data };
  const reasons = result.error.issues.map((issue) => {
    const where = issue.path.length > 0 ? issue.path.map(String).join('.') : '(arguments)';
    return `${where}: ${issue.message}`;
  });
  return { ok: false, error: invalid(tool.name, reasons) };
}

function invalid(name: string, reasons: readonly string[]): string {
  return `invalid arguments for tool "${name}": ${reasons.join('; ')}. Fix the arguments and call the tool again.`;
}

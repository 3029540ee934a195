import { z } from 'zod';

/**
 * A zod field for `tools.shell.run_as`: `uid` or `uid:gid`, never 0 (a number in YAML is read as a uid).
 * Kept as written; `parseRunAs` (core/tools) reads it.
 */
export const runAs = (fallback: string) =>
  z.coerce
    .string()
    .regex(/^[1-9]\d*(:[1-9]\d*)?$/, 'expected uid or uid:gid (e.g. 65534:65534), never 0')
    .default(fallback);

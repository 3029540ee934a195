import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { z } from 'zod';
import { SkillManifestError } from './errors.ts';

/** The file that makes a folder a skill. */
export const MANIFEST = 'skill.yaml';

const hex64 = z.string().regex(/^[0-9a-f]{64}$/, { message: 'expected 64 lower-case hex digits (SHA-256)' });

/**
 * `skill.yaml`. `name` becomes part of tool names (`skill__<name>__<tool>`), so it follows the tool-name
 * alphabet; `checksum` and `signature` are written by `kazma hub sign`, never by hand.
 */
export const manifestSchema = z.object({
  name: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, { message: 'expected 1-32 lower-case letters, digits, "_" or "-"' }),
  version: z.coerce.string().default('0.0.0'),
  description: z.string().default(''),
  /** The ES module, relative to the folder, that exports the skill's tools. */
  entry_point: z
    .string()
    .min(1)
    .refine((p) => !p.startsWith('/') && !p.split(/[\\/]/).includes('..'), {
      message: 'expected a path inside the skill folder',
    }),
  capabilities: z.array(z.string()).default([]),
  author: z.string().default(''),
  checksum: hex64.optional(),
  signature: hex64.optional(),
});

export type SkillManifest = z.output<typeof manifestSchema>;

/** Reads and validates `<dir>/skill.yaml`; throws {@link SkillManifestError} naming each bad field. */
export function readManifest(dir: string): SkillManifest {
  let text: string;
  try {
    text = readFileSync(join(dir, MANIFEST), 'utf8');
  } catch (error) {
    throw new SkillManifestError(dir, [
      `cannot read it: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    ]);
  }
  const doc = parseDocument(text);
  if (doc.errors.length > 0)
    throw new SkillManifestError(
      dir,
      doc.errors.map((e) => `(yaml) ${e.message.split('\n')[0]!.replace(/:$/, '')}`),
    );
  const parsed = manifestSchema.safeParse(doc.toJS() ?? {});
  if (!parsed.success)
    throw new SkillManifestError(
      dir,
      parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`),
    );
  return parsed.data;
}

/** Writes `checksum` and `signature` into `<dir>/skill.yaml`, keeping the rest of the file (comments too). */
export function writeSignature(dir: string, fields: { checksum: string; signature: string }): void {
  const path = join(dir, MANIFEST);
  const doc = parseDocument(readFileSync(path, 'utf8'));
  doc.set('checksum', fields.checksum);
  doc.set('signature', fields.signature);
  writeFileSync(path, doc.toString());
}

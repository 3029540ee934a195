import { createHash } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { SkillFilesError } from './errors.ts';

// Relative specifiers in static imports/exports, side-effect imports and literal dynamic imports.
const SPECIFIERS = [
  /\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]/g,
  /\bimport\s*['"](\.{1,2}\/[^'"]+)['"]/g,
  /\bimport\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g,
];
// A dynamic import whose argument is not a string literal names a file no checksum can know in advance.
const COMPUTED_IMPORT = /\bimport\s*\(\s*(?!['"])[^)\s]/;

/**
 * The files a skill's code is made of: its entry module and every file it imports, transitively,
 * through relative specifiers (package imports are not the skill's own files). A relative import that
 * leaves the folder, a missing file, or an `import()` of a computed name throws {@link SkillFilesError}:
 * the checksum must cover every file of the skill's own code, or the skill is refused.
 * Returns paths relative to `dir`, sorted.
 */
export function skillFiles(dir: string, entryPoint: string): string[] {
  const root = realpathSync(dir);
  const seen = new Set<string>();
  const queue = [resolve(root, entryPoint)];
  while (queue.length > 0) {
    const file = queue.pop()!;
    let real: string;
    try {
      real = realpathSync(file);
    } catch {
      throw new SkillFilesError(`${relative(root, file)} is imported by the skill but does not exist`);
    }
    // Through realpath, so a symlink cannot smuggle in a file from elsewhere.
    if (real !== root && !real.startsWith(root + sep))
      throw new SkillFilesError(
        `${relative(root, file)} is outside the skill folder, so its checksum cannot cover it; move it into the folder`,
      );
    const rel = relative(root, real);
    if (seen.has(rel)) continue;
    seen.add(rel);
    const text = readFileSync(real, 'utf8');
    if (COMPUTED_IMPORT.test(text))
      throw new SkillFilesError(
        `${rel} imports a module by a computed name, which the checksum cannot cover; import it by a literal path`,
      );
    for (const pattern of SPECIFIERS) {
      for (const match of text.matchAll(pattern)) queue.push(resolve(dirname(real), match[1]!));
    }
  }
  return [...seen].sort();
}

/**
 * The skill's checksum: SHA-256 over each file's relative path and its own SHA-256, in path order, so a
 * changed, added, removed or renamed file of its code changes it.
 */
export function skillChecksum(dir: string, entryPoint: string): string {
  const root = realpathSync(dir);
  const total = createHash('sha256');
  for (const rel of skillFiles(root, entryPoint)) {
    const digest = createHash('sha256')
      .update(readFileSync(resolve(root, rel)))
      .digest('hex');
    total.update(`${rel.split(sep).join('/')}\0${digest}\n`);
  }
  return total.digest('hex');
}

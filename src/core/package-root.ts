// Kazma's own folder (the one holding its package.json, migrations/ and agent-skills/), found from where
// the running code is: src/ through tsx, dist/ once built, and any chunk of the bundled build at its own
// depth. A path counted in `../` from a source file would point elsewhere once bundled.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The nearest folder at or above `from` whose package.json names the package `kazma`. */
export function findPackageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'kazma')
      return dir;
    if (dirname(dir) === dir) throw new Error(`Kazma's package.json was not found above ${from}`);
  }
}

/** Kazma's own folder. */
export const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

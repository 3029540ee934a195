import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { holdsExactly, type SealedSkill } from './checksum.ts';

/**
 * Copies a sealed skill's bytes — the very bytes that were hashed — to `<cacheRoot>/<checksum>/` and
 * returns that folder: the skill is imported from there, so its own node_modules, a computed `import()`
 * and a `createRequire` all resolve to sealed files, and a change to the original folder after the check
 * cannot run. A copy already there is reused only when it holds exactly these bytes; a new one is
 * written beside it and renamed into place, so another process never imports a half-written copy.
 */
export function materializeSkill(sealed: SealedSkill, cacheRoot: string): string {
  const dir = join(cacheRoot, sealed.checksum);
  if (holdsExactly(dir, sealed.files)) return dir;
  const fresh = `${dir}.${randomBytes(6).toString('hex')}.tmp`;
  for (const [rel, bytes] of sealed.files) {
    mkdirSync(dirname(join(fresh, rel)), { recursive: true });
    writeFileSync(join(fresh, rel), bytes, { mode: 0o600 });
  }
  const stale = `${dir}.${randomBytes(6).toString('hex')}.stale`;
  try {
    renameSync(dir, stale); // a copy that no longer matches: moved aside, never imported
  } catch {
    // none there (the usual case)
  }
  try {
    renameSync(fresh, dir);
  } catch (error) {
    rmSync(fresh, { recursive: true, force: true });
    // Another process renamed its copy in first: use it only if it holds the same bytes.
    if (!holdsExactly(dir, sealed.files)) throw error;
  }
  rmSync(stale, { recursive: true, force: true });
  return dir;
}

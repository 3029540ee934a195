import { randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Clock } from '../clock.ts';
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

/** A copy no skill folder names now is removed once it has not been used for this long (a day). */
export const PRUNE_UNUSED_MS = 24 * 60 * 60 * 1000;
/** How often a running Kazma marks the copies its loaded skills use (well inside {@link PRUNE_UNUSED_MS}). */
export const MARK_IN_USE_MS = 60 * 60 * 1000;
const COPY = /^[0-9a-f]{64}$/;
const LEFTOVER = /^[0-9a-f]{64}\.[0-9a-f]{12}\.(tmp|stale)$/;

/**
 * Marks the copies `checksums` name as in use (their folder's mtime becomes now): a running Kazma calls it
 * once its skills are loaded and every {@link MARK_IN_USE_MS}, so another process's {@link pruneSkillCache}
 * never takes a copy whose code it imported.
 */
export function markInUse(cacheRoot: string, checksums: Iterable<string>, clock: Clock): void {
  const now = clock.now();
  for (const checksum of checksums) {
    try {
      utimesSync(join(cacheRoot, checksum), now, now);
    } catch {
      // gone (pruned by hand): the next start writes it again
    }
  }
}

/**
 * Removes from `<data_dir>/skill-cache` the copies no skill folder names now (`keep`: every checksum found,
 * loaded or not) that have not been marked in use for {@link PRUNE_UNUSED_MS} — an old version of a skill,
 * a skill removed — and half-written or set-aside copies (`.tmp`, `.stale`) left by a crash as old.
 * A copy is moved aside (renamed) before it is deleted, so nothing ever imports one half removed; a
 * copy a skill of this process uses is in `keep`, and one another process uses was marked within the
 * hour. Anything else in the folder is left alone. Returns the names removed.
 */
export function pruneSkillCache(cacheRoot: string, keep: ReadonlySet<string>, clock: Clock): string[] {
  const now = clock.now().getTime();
  let entries: string[];
  try {
    entries = readdirSync(cacheRoot);
  } catch {
    return []; // no cache yet
  }
  const removed: string[] = [];
  for (const name of entries) {
    if (keep.has(name) || !(COPY.test(name) || LEFTOVER.test(name))) continue;
    const dir = join(cacheRoot, name);
    const stat = lstatSync(dir, { throwIfNoEntry: false });
    if (!stat?.isDirectory() || now - stat.mtimeMs < PRUNE_UNUSED_MS) continue;
    const aside = LEFTOVER.test(name) ? dir : `${dir}.${randomBytes(6).toString('hex')}.stale`;
    try {
      if (aside !== dir) renameSync(dir, aside);
      rmSync(aside, { recursive: true, force: true });
      removed.push(name);
    } catch {
      // another process took it first
    }
  }
  return removed;
}

import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { SkillFilesError } from './errors.ts';
import { MANIFEST, type SkillManifest } from './manifest.ts';

/**
 * A skill as sealed: every file of its folder by relative path (`/`-separated) with the bytes that were
 * hashed, and the checksum over them and the manifest. What runs is these bytes, copied out
 * (cache.ts), never the folder read again: a change after the check cannot run.
 */
export interface SealedSkill {
  checksum: string;
  files: ReadonlyMap<string, Buffer>;
}

/**
 * Every file under `dir`, read once: the skill's own node_modules, files only a computed `import()` or a
 * `createRequire` reaches, data — anything Node could load from the folder. A symlink is sealed by its
 * target's content when the target is a file inside the folder; one leading out of the folder, to a
 * folder, or nowhere throws {@link SkillFilesError}, as does a special file. The top-level `.git` is left
 * out: it is never copied to where the skill runs, so nothing in it can run. `skill.yaml` is covered as
 * its parsed fields (see {@link skillChecksum}), not as bytes.
 */
export function readSkillTree(dir: string): Map<string, Buffer> {
  const root = realpathSync(dir);
  const files = new Map<string, Buffer>();
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      const rel = relative(root, path).split(sep).join('/');
      if (at === root && (entry.name === '.git' || entry.name === MANIFEST)) continue;
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) files.set(rel, readFileSync(path));
      else if (entry.isSymbolicLink()) files.set(rel, readLink(root, path, rel));
      else throw new SkillFilesError(`${rel} is not a regular file, so the checksum cannot cover it; remove it`);
    }
  };
  walk(root);
  return new Map([...files].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/**
 * The content of the file a symlink leads to: a symlink is sealed by what it points at, so pointing it
 * elsewhere is a change. One leading out of `root` (the folder's real path), to a folder, or nowhere
 * throws {@link SkillFilesError}: no seal could cover it.
 */
export function readLink(root: string, path: string, rel: string): Buffer {
  let target: string;
  try {
    target = realpathSync(path);
  } catch {
    throw new SkillFilesError(`${rel} is a symlink that leads nowhere; remove it`);
  }
  // Through realpath, so a chain of links cannot smuggle in a file from elsewhere.
  if (!target.startsWith(root + sep))
    throw new SkillFilesError(
      `${rel} is a symlink to outside the skill folder, so its checksum cannot cover it; copy the file into the folder`,
    );
  if (!statSync(target).isFile())
    throw new SkillFilesError(`${rel} is a symlink to a folder; skill folders may link only files`);
  return readFileSync(target);
}

/** The fields of skill.yaml the checksum covers: all but the checksum and signature written into it. */
function manifestText(manifest: SkillManifest): string {
  const { checksum: _c, signature: _s, ...fields } = manifest;
  return JSON.stringify(Object.fromEntries(Object.entries(fields).sort(([a], [b]) => (a < b ? -1 : 1))));
}

/**
 * The skill's checksum: SHA-256 over each file's path and its own SHA-256, in path order, and over
 * skill.yaml's fields (entry_point included), so a changed, added, removed or renamed file, or a changed
 * field, changes it.
 */
export function skillChecksum(files: ReadonlyMap<string, Buffer>, manifest: SkillManifest): string {
  const total = createHash('sha256');
  total.update(`${MANIFEST}\0${createHash('sha256').update(manifestText(manifest)).digest('hex')}\n`);
  for (const [rel, bytes] of files) total.update(`${rel}\0${createHash('sha256').update(bytes).digest('hex')}\n`);
  return total.digest('hex');
}

/** Reads and seals a skill folder: its files and their checksum, from one read of each file. */
export function sealSkill(dir: string, manifest: SkillManifest): SealedSkill {
  const files = readSkillTree(dir);
  if (!files.has(manifest.entry_point.split(sep).join('/').replace(/^\.\//, ''))) {
    throw new SkillFilesError(`${manifest.entry_point} (entry_point) is not a file of the skill folder`);
  }
  return { checksum: skillChecksum(files, manifest), files };
}

/** The files a checksum covers, for `kazma hub sign` and `kazma hub info`. */
export function skillFiles(dir: string): string[] {
  return [...readSkillTree(dir).keys(), MANIFEST].sort();
}

/** True when `dir` holds exactly `files`, byte for byte (a cached copy that can be reused). */
export function holdsExactly(dir: string, files: ReadonlyMap<string, Buffer>): boolean {
  try {
    if (!lstatSync(dir).isDirectory()) return false;
    const found = readSkillTree(dir);
    return found.size === files.size && [...files].every(([rel, bytes]) => found.get(rel)?.equals(bytes));
  } catch {
    return false;
  }
}

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { systemClock, type Clock } from '../../clock.ts';
import { readLink } from '../checksum.ts';
import { hmacHex, sameDigest } from '../signature.ts';
import { SECRET_ENV } from '../verify.ts';

/**
 * Written beside an installed Agent Skill: what it was installed from, every file's SHA-256, and the HMAC over them.
 */
export const INSTALL_FILE = '.kazma-install.json';

/**
 * Every file of the folder (but the seal itself and `.git`), relative, with its SHA-256; sorted. A
 * symlink counts as the file it leads to; one leading out of the folder throws (see readLink).
 */
export function folderDigests(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const root = realpathSync(dir);
  const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.name === '.git' || (at === dir && entry.name === INSTALL_FILE)) continue;
      const rel = relative(dir, path).split(sep).join('/');
      // A symlink could point anywhere and change without the folder changing: sealed by what it leads to.
      if (entry.isSymbolicLink()) out[rel] = sha(readLink(root, path, rel));
      else if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) out[rel] = sha(readFileSync(path));
    }
  };
  walk(dir);
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

const canonical = (files: Record<string, string>) =>
  Object.entries(files)
    .map(([path, digest]) => `${path}\0${digest}\n`)
    .join('');

/** Seals a folder with this install's key: writes {@link INSTALL_FILE}, `sealed_at` read from `clock`. */
export function sealFolder(dir: string, secret: string, source: string, clock: Clock = systemClock): void {
  const files = folderDigests(dir);
  const seal = {
    version: 1,
    source,
    sealed_at: clock.now().toISOString(),
    files,
    signature: hmacHex(secret, canonical(files)),
  };
  writeFileSync(join(dir, INSTALL_FILE), `${JSON.stringify(seal, null, 2)}\n`);
}

/**
 * Whether an Agent Skill's folder is as it was sealed: verified, unsigned (no seal) or refused, and why;
 * `source` is what the seal says it was installed from (a folder, a git URL, an npm package).
 */
export type SealVerdict =
  | { status: 'verified'; source?: string }
  | { status: 'unsigned'; warning: string }
  | { status: 'refused'; reason: string; source?: string };

export function checkSeal(dir: string, secret: string | undefined): SealVerdict {
  let seal: { files?: Record<string, string>; signature?: string; source?: unknown };
  try {
    seal = JSON.parse(readFileSync(join(dir, INSTALL_FILE), 'utf8')) as typeof seal;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { status: 'unsigned', warning: 'not installed through kazma agent-skills, so nothing vouches for it' };
    return { status: 'refused', reason: `${INSTALL_FILE} is unreadable: re-sign it with kazma agent-skills sign` };
  }
  const from = typeof seal.source === 'string' ? { source: seal.source } : {};
  if (typeof seal.signature !== 'string' || typeof seal.files !== 'object' || seal.files === null)
    return {
      ...from,
      status: 'refused',
      reason: `${INSTALL_FILE} is incomplete: re-sign it with kazma agent-skills sign`,
    };
  if (!secret)
    return {
      ...from,
      status: 'refused',
      reason: `it is signed, but ${SECRET_ENV} is not set, so its signature cannot be checked`,
    };
  if (!sameDigest(seal.signature, hmacHex(secret, canonical(seal.files))))
    return {
      ...from,
      status: 'refused',
      reason: `its signature does not match ${SECRET_ENV}: it was signed with another key or altered`,
    };
  let now: Record<string, string>;
  try {
    now = folderDigests(dir);
  } catch (error) {
    return { ...from, status: 'refused', reason: (error as Error).message };
  }
  const changed = [...new Set([...Object.keys(now), ...Object.keys(seal.files)])]
    .filter((f) => now[f] !== seal.files![f])
    .sort();
  if (changed.length > 0)
    return {
      ...from,
      status: 'refused',
      reason:
        `${changed.slice(0, 3).join(', ')}${changed.length > 3 ? ' …' : ''} changed since it was signed; ` +
        `re-sign it with kazma agent-skills sign if you trust it`,
    };
  return { ...from, status: 'verified' };
}

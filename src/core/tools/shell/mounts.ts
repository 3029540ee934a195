import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { isInside } from '../workspace.ts';

/**
 * The system folders a command's programs and libraries live in, read-only. On merged-/usr systems
 * (Debian 12) /bin, /sbin and /lib* are symlinks into /usr and are made the same links in the sandbox.
 */
const SYSTEM = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/**
 * The files of /etc that programs read to work, and nothing else of it: users and groups (git's identity,
 * `ls -l`), name resolution, the dynamic linker's cache, the time zone, TLS certificates, and Debian's
 * alternatives (/usr/bin/awk is a link through /etc/alternatives). No other application's configuration.
 */
const ETC = [
  '/etc/passwd',
  '/etc/group',
  '/etc/nsswitch.conf',
  '/etc/hosts',
  '/etc/host.conf',
  '/etc/resolv.conf',
  '/etc/gai.conf',
  '/etc/services',
  '/etc/protocols',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/localtime',
  '/etc/alternatives',
  '/etc/ssl',
  '/etc/ca-certificates',
  '/etc/pki',
  '/etc/mime.types',
];

/**
 * The bubblewrap arguments that show a sandbox the host's system folders and the few /etc files above,
 * read-only; everything else of the host (/home, /root, /srv, /opt, /var, /mnt, /run, other users' and
 * applications' files) is absent.
 *
 * @example
 * systemMounts() // ['--ro-bind', '/usr', '/usr', '--symlink', 'usr/bin', '/bin', …]
 */
export function systemMounts(): string[] {
  const args: string[] = [];
  for (const path of SYSTEM) {
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (stat?.isSymbolicLink()) args.push('--symlink', readlinkSync(path), path);
    else if (stat?.isDirectory()) args.push('--ro-bind', path, path);
  }
  // existsSync follows a link (/etc/resolv.conf into /run): bwrap binds what the link names at the link's place.
  for (const path of ETC) if (existsSync(path)) args.push('--ro-bind', path, path);
  return args;
}

/**
 * Read-only binds of `programs` that lie outside the system folders (a git in ~/.local/bin), one file
 * each, so the command still starts. Given after the private /tmp and the hidden folders, so a program
 * under one of them is bound on top.
 */
export function programMounts(programs: readonly string[]): string[] {
  return programs.filter((p) => !isSystem(p)).flatMap((p) => ['--ro-bind', p, p]);
}

/** True when `path` lies in a system folder the sandbox shows anyway. */
export const isSystem = (path: string): boolean => SYSTEM.some((dir) => isInside(dir, path));

/** How many words each mount operation `bwrapArgs` uses takes, its destination last. */
const OPERATION: Record<string, number> = {
  '--ro-bind': 2,
  '--bind': 2,
  '--symlink': 2,
  '--tmpfs': 1,
  '--dir': 1,
  '--dev': 1,
  '--proc': 1,
  '--perms': 1,
};

/**
 * Puts `--perms 0755 --dir <parent>` before each mount whose destination's parents are not there yet.
 * bubblewrap would make them itself, but as root (dropping to a user afterwards) it makes them 0700, which
 * would shut that user out of /etc's files and the workspace's path. A parent inside a bound host folder
 * is the host's own and is left alone.
 */
export function withParents(mounts: readonly string[]): string[] {
  const out: string[] = [];
  const made = new Set(['/']);
  const bound: string[] = [];
  let pending: string[] = []; // a --perms waiting for the operation it applies to
  for (let i = 0; i < mounts.length; ) {
    const op = mounts[i]!;
    const words = OPERATION[op];
    if (words === undefined) throw new Error(`bwrapArgs: unknown mount operation ${op}`);
    const taken = mounts.slice(i, i + 1 + words);
    i += 1 + words;
    if (op === '--perms') {
      pending = taken;
      continue;
    }
    const dest = taken.at(-1)!;
    const parents: string[] = [];
    for (let dir = dirname(dest); !made.has(dir); dir = dirname(dir)) parents.unshift(dir);
    for (const dir of parents) {
      made.add(dir);
      if (!bound.some((b) => isInside(b, dir))) out.push('--perms', '0755', '--dir', dir);
    }
    out.push(...pending, ...taken);
    pending = [];
    made.add(dest);
    if (op === '--ro-bind' || op === '--bind') bound.push(dest);
  }
  return out;
}

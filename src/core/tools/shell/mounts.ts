import { existsSync, lstatSync, readlinkSync } from 'node:fs';
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
 * applications' files) is absent. `programs` outside those folders (a git in ~/.local/bin) are bound one
 * file each, read-only, so the command still starts.
 *
 * @example
 * systemMounts(['/usr/bin/git']) // ['--ro-bind', '/usr', '/usr', '--symlink', 'usr/bin', '/bin', …]
 */
export function systemMounts(programs: readonly string[] = []): string[] {
  const args: string[] = [];
  for (const path of SYSTEM) {
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (stat?.isSymbolicLink()) args.push('--symlink', readlinkSync(path), path);
    else if (stat?.isDirectory()) args.push('--ro-bind', path, path);
  }
  // existsSync follows a link (/etc/resolv.conf into /run): bwrap binds what the link names at the link's place.
  for (const path of ETC) if (existsSync(path)) args.push('--ro-bind', path, path);
  for (const program of programs) {
    if (!SYSTEM.some((dir) => isInside(dir, program))) args.push('--ro-bind', program, program);
  }
  return args;
}

import path from 'node:path';
import { RefusedBeforeEffect } from '../../effects/index.ts';

/**
 * Commands that destroy far more than the task could need. Checked before the allow list, so the
 * reason names the danger even when the program is allowed (or would be refused anyway).
 */
const DISK_TOOLS = /^(mkfs(\..+)?|mke2fs|mkswap|mkdosfs|wipefs|fdisk|sfdisk|cfdisk|gdisk|parted|shred|blkdiscard)$/;
const POWER = new Set(['shutdown', 'reboot', 'halt', 'poweroff', 'init', 'telinit']);
const OWNERSHIP = new Set(['chmod', 'chown', 'chgrp']);

/** Throws {@link RefusedBeforeEffect} when `name args` is catastrophic; `root` is the workspace's real path. */
export function checkCatastrophic(name: string, args: readonly string[], root: string): void {
  if (DISK_TOOLS.test(name)) refuse(`"${name}" formats or wipes disks (mkfs and kin are never allowed)`);
  if (POWER.has(name)) refuse(`"${name}" would stop or restart the machine`);
  if (name === 'rm') checkRm(args, root);
  if (name === 'dd') checkDd(args);
  if (OWNERSHIP.has(name)) checkOwnership(name, args, root);
}

function checkRm(args: readonly string[], root: string): void {
  const { flags, operands } = split(args);
  if (flags.some((flag) => flag.startsWith('--no-preserve-root'))) {
    refuse('`rm --no-preserve-root` is never allowed: it exists to delete the whole filesystem');
  }
  const recursive = flags.some((flag) => flag === '--recursive' || /^-[^-]*[rR]/.test(flag));
  const form = recursive ? 'rm -rf' : 'rm';
  for (const operand of operands) {
    if (operand === '/' || /^\/+\.?\/*$/.test(operand)) refuse(`\`${form} /\` would delete the whole filesystem`);
    if (operand === '*' || operand === '/*') refuse(`\`${form} *\` would delete everything in the workspace root`);
    if (operand.startsWith('~')) refuse(`\`${form} ~\` would delete a home directory`);
    const resolved = path.resolve(root, operand);
    // The workspace root itself, or any directory that contains it (`.`, `./`, `..`, its absolute path).
    if (
      resolved === root ||
      root.startsWith(`${resolved.replace(/\/+$/, '')}${path.sep}`) ||
      resolved === path.parse(root).root
    ) {
      refuse(`\`${form} ${operand}\` would delete the workspace root (${root}); name the files inside it instead`);
    }
  }
}

function checkDd(args: readonly string[]): void {
  for (const arg of args) {
    if (/^of=\/dev\//.test(arg) && !/^of=\/dev\/(null|stdout|stderr)$/.test(arg)) {
      refuse(`\`dd ${arg}\` writes to a device and can destroy a disk`);
    }
  }
}

function checkOwnership(name: string, args: readonly string[], root: string): void {
  const { flags, operands } = split(args);
  const recursive = flags.some((flag) => flag === '--recursive' || /^-[^-]*R/.test(flag));
  if (!recursive) return;
  for (const operand of operands) {
    const resolved = operand.startsWith('~') ? '~' : path.resolve(root, operand);
    // `/`, a home, or a top-level system directory such as /etc or /usr.
    if (resolved === '~' || resolved.split(path.sep).filter(Boolean).length <= 1) {
      refuse(
        `\`${name} -R ... ${operand}\` would change permissions across the system (${name} -R 777 / and kin are ` +
          `never allowed)`,
      );
    }
  }
}

function split(args: readonly string[]): { flags: string[]; operands: string[] } {
  const flags: string[] = [];
  const operands: string[] = [];
  let options = true;
  for (const arg of args) {
    if (options && arg === '--') options = false;
    else if (options && arg.startsWith('-') && arg !== '-') flags.push(arg);
    else operands.push(arg);
  }
  return { flags, operands };
}

function refuse(reason: string): never {
  throw new RefusedBeforeEffect(reason);
}

import { RefusedBeforeEffect } from '../../effects/index.ts';

// -fprint and kin write files: paths.ts lets find name git's files because it only reads without them.
const FIND_ACTIONS = new Set([
  '-exec',
  '-execdir',
  '-ok',
  '-okdir',
  '-delete',
  '-fprint',
  '-fprint0',
  '-fprintf',
  '-fls',
]);
// Long options that hand a program name to the tool (`sort --compress-program=sh`,
// `tar --to-command`, `rsync --rsh`); any allowed tool with such an option could run anything.
const PROGRAM_OPTION = /^--[a-z-]*(program|command|exec|rsh|shell|editor|pager|hook|checkpoint-action)(=|$)/i;

/**
 * Refuses arguments that turn an allowed program into a launcher for other programs or into a
 * deleter or writer (`find -exec/-execdir/-ok/-okdir/-delete/-fprint`), options such as `--compress-program`, and
 * `date --set`.
 */
export function checkProgramArgs(name: string, args: readonly string[]): void {
  if (name === 'find') {
    const action = args.find((arg) => FIND_ACTIONS.has(arg));
    if (action) {
      throw new RefusedBeforeEffect(
        `\`find ${action}\` is not allowed: it runs commands, deletes or writes files; use find to list paths, then ` +
          `act on them in separate calls`,
      );
    }
  }
  if (name === 'date' && args.some((arg) => arg === '-s' || arg.startsWith('--set'))) {
    throw new RefusedBeforeEffect('`date -s/--set` changes the system clock; it is not allowed');
  }
  const option = args.find((arg) => PROGRAM_OPTION.test(arg));
  if (option) {
    throw new RefusedBeforeEffect(
      `\`${name} ${option.split('=')[0]}\` makes ${name} run another program; it is not allowed`,
    );
  }
}

import { parse, type ParseEntry } from 'shell-quote';
import { RefusedBeforeEffect } from '../../effects/index.ts';

/** Marks where shell-quote met `$NAME`; an object, so it cannot be confused with a word. */
interface EnvMarker {
  env: string;
}

/**
 * Splits a command line into argv the way a shell would quote it, and refuses everything a shell
 * would do beyond that: operators (pipes, `;`, `&&`, `||`, redirections, subshells, background `&`),
 * command substitution (backticks, `$(`), variable expansion, globs, comments and line breaks.
 * The command is then run without a shell, so none of those would work anyway; refusing them
 * tells the model so instead of passing a literal `|` to a program.
 *
 * @example
 * parseCommand('grep -n "a b" notes.txt') // ['grep', '-n', 'a b', 'notes.txt']
 */
export function parseCommand(command: string): string[] {
  if (command.includes('`')) refuse('backticks (command substitution) are not supported');
  if (command.includes('$(')) refuse('`$(...)` (command substitution) is not supported');
  if (/[\r\n]/.test(command)) refuse('a line break would start a second command; send one command per call');
  const entries = parse(command, (name: string): EnvMarker => ({ env: name }));
  const argv: string[] = [];
  for (const entry of entries) argv.push(word(entry));
  if (argv.length === 0 || argv[0] === '') refuse('the command is empty');
  return argv;
}

function word(entry: ParseEntry | EnvMarker): string {
  if (typeof entry === 'string') return entry;
  if ('env' in entry) {
    return refuse(`environment variable expansion ($${entry.env}) is not supported; write the value out`);
  }
  if ('comment' in entry) return refuse('comments (#) are not supported; remove them or quote the "#"');
  if (entry.op === 'glob') {
    return refuse(`globs (${entry.pattern}) are not expanded; list the files, or use find/grep -r`);
  }
  return refuse(
    `shell operator "${entry.op}" is not supported: run one program per call, without pipes, redirections, chaining ` +
      `or subshells`,
  );
}

function refuse(reason: string): never {
  throw new RefusedBeforeEffect(reason);
}

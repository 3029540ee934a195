import type { CommandContext } from './registry.ts';

/** What a sub-command is handed besides the context: what follows its name. */
export interface SubcommandInput {
  /** The words after the sub-command's name, as typed. */
  words: string[];
  /** The text after the sub-command's name, as typed (trimmed). */
  rest: string;
}

export type SubcommandRun = (ctx: CommandContext, input: SubcommandInput) => Promise<void>;

/** A level of sub-commands: the command's own, or a sub-command's (`/config tools list`). */
export interface SubcommandBranch {
  /** Sub-commands by their lower-case name, in the order the usage lists them. */
  subcommands: Record<string, Subcommand>;
  /** Runs when no word follows; without it, the command's usage reply. */
  none?: SubcommandRun;
  /** Runs when the first word names no sub-command, handed every word; without it, the usage reply. */
  other?: SubcommandRun;
}

interface SubcommandCommon {
  /** It is matched only when at most this many words follow its name; with more, the text is `other`'s. */
  maxWords?: number;
}

/** A sub-command that runs. */
export interface SubcommandLeaf extends SubcommandCommon {
  /** What follows its name in the usage (`<grant id>`). */
  params?: string;
  /** It needs a word after its name; without one it answers `Usage: /<command> <name> <params> (see <see>).` */
  required?: { see: string };
  run: SubcommandRun;
}

export type Subcommand = SubcommandLeaf | (SubcommandBranch & SubcommandCommon);

/**
 * The sub-commands of one chat command, by name (→ its handler, or a branch of its own). A command's
 * `run` is `runSubcommands(table)`: it picks the sub-command from the first word and hands it the rest.
 */
export interface SubcommandTable extends SubcommandBranch {
  /** The command's name, without the slash. */
  command: string;
  /** Whether a sub-command's name matches whatever its case (`CANCEL` as `cancel`). */
  ignoreCase: boolean;
  /** The usage reply from the table's lines (`/config show`, …); by default `Usage: ` and them, joined by ` · `. */
  usage?: (lines: string[]) => string;
}

/** The table's usage lines, one per sub-command that runs: `/config tools toggle <name>`. */
export function usageLines(table: SubcommandTable): string[] {
  const lines = (branch: SubcommandBranch, path: string): string[] =>
    Object.entries(branch.subcommands).flatMap(([name, sub]) =>
      'run' in sub ? [`${path} ${name}${sub.params ? ` ${sub.params}` : ''}`] : lines(sub, `${path} ${name}`),
    );
  return lines(table, `/${table.command}`);
}

/** The reply to a missing or unknown sub-command. */
export function usageReply(table: SubcommandTable): string {
  const lines = usageLines(table);
  return table.usage ? table.usage(lines) : `Usage: ${lines.join(' · ')}`;
}

/** A command's `run`: the sub-command named by the first word runs with the words after it. */
export function runSubcommands(table: SubcommandTable): (ctx: CommandContext) => Promise<void> {
  return (ctx) => dispatch(table, table, `/${table.command}`, ctx, { words: ctx.args, rest: ctx.rest.trim() });
}

async function dispatch(
  table: SubcommandTable,
  branch: SubcommandBranch,
  path: string,
  ctx: CommandContext,
  input: SubcommandInput,
): Promise<void> {
  const [first, ...after] = input.words;
  if (first === undefined) return branch.none ? branch.none(ctx, input) : ctx.reply(usageReply(table));
  const name = table.ignoreCase ? first.toLowerCase() : first;
  // Own names only: `constructor` is no sub-command.
  const sub = Object.hasOwn(branch.subcommands, name) ? branch.subcommands[name] : undefined;
  if (!sub || (sub.maxWords !== undefined && after.length > sub.maxWords))
    return branch.other ? branch.other(ctx, input) : ctx.reply(usageReply(table));
  const next = { words: after, rest: input.rest.replace(/^\S+\s*/, '') };
  if (!('run' in sub)) return dispatch(table, sub, `${path} ${name}`, ctx, next);
  if (sub.required && after.length === 0)
    return ctx.reply(`Usage: ${path} ${name}${sub.params ? ` ${sub.params}` : ''} (see ${sub.required.see}).`);
  return sub.run(ctx, next);
}

/** A chat command as typed: `/name arg1 arg2`, with Telegram's `/name@bot` form accepted. */
export interface ParsedCommand {
  /** Lower-cased, without the slash or the `@bot` suffix. */
  name: string;
  /** Whitespace-separated words after the name. */
  args: string[];
  /** Everything after the name, as typed (trimmed). */
  rest: string;
}

const COMMAND = /^\/([A-Za-z][A-Za-z0-9_]*)(?:@[A-Za-z0-9_]+)?(?:\s+([\s\S]*))?$/;

/**
 * Parses text that starts with a command; undefined for anything else, including paths such as
 * `/tmp/x is big`, which go to the agent.
 * @example parseCommand('/config tools toggle shell')
 * // { name: 'config', args: ['tools','toggle','shell'], rest: 'tools toggle shell' }
 */
export function parseCommand(text: string): ParsedCommand | undefined {
  const match = COMMAND.exec(text.trim());
  if (!match) return undefined;
  const rest = (match[2] ?? '').trim();
  return { name: match[1]!.toLowerCase(), args: rest === '' ? [] : rest.split(/\s+/), rest };
}

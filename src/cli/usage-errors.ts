// What a person typed wrong on the command line, said in one line with the likely fix — never a stack.
// node:util parseArgs (strict) throws coded TypeErrors; each code becomes its sentence here.

const PARSE_ARGS_CODES = new Set([
  'ERR_PARSE_ARGS_UNKNOWN_OPTION',
  'ERR_PARSE_ARGS_INVALID_OPTION_VALUE',
  'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL',
]);

/**
 * The one line for an argument error of `kazma <command>`, or undefined when `error` is not one. `usage` is
 * the command's usage text: the options it names are what a misspelt one is compared with.
 */
export async function usageErrorLine(command: string, usage: string, error: unknown): Promise<string | undefined> {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string' || !PARSE_ARGS_CODES.has(code)) return undefined;
  const message = (error as Error).message.split('\n')[0]!;
  // "Unknown option '--confg'", "Option '-c, --config <value>' argument missing": the long form when named.
  const option = /--[a-z][a-z0-9-]*/.exec(message)?.[0] ?? /'(-{1,2}[^'\s,]+)/.exec(message)?.[1];
  const options = [...new Set(usage.match(/--[a-z][a-z0-9-]*/g) ?? [])];
  const guess =
    code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option?.startsWith('--')
      ? (await import('../core/config/index.ts')).didYouMean(option.split('=')[0]!, options)
      : undefined;
  const why =
    code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION'
      ? `unknown option ${option ?? ''}`.trim()
      : code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE'
        ? `${option ?? 'an option'} needs a value`
        : `unexpected argument ${/'([^']+)'/.exec(message)?.[1] ?? ''}`.trim();
  return `kazma ${command}: ${why}${guess ? ` (did you mean ${guess}?)` : ''}; see "kazma ${command} --help"`;
}

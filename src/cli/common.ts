import { loadConfig, type LoadedConfig } from '../core/config/index.ts';
import { KazmaError } from '../core/errors.ts';
import { createLogger, type Logger } from '../core/log/index.ts';

/** Exit codes the CLI promises: 0 ok, 1 runtime failure, 2 bad configuration or usage. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

/** One subcommand: its usage text and its body, which returns the exit code. */
export interface Subcommand {
  summary: string;
  usage: string;
  run(args: string[]): Promise<number>;
}

export function loadOrExplain(configPath: string | undefined): LoadedConfig {
  return loadConfig({ path: configPath });
}

/** The process's logger; it says first what the file should change (a renamed key), once per process. */
export function loggerFor(loaded: LoadedConfig): Logger {
  const logger = createLogger({ level: loaded.config.log.level, secrets: loaded.secrets });
  for (const warning of loaded.warnings ?? []) logger.warn({ file: loaded.path }, warning);
  return logger;
}

/** Prints a KazmaError as the one clear message it carries; anything else with its stack. */
export function explain(error: unknown): number {
  if (error instanceof KazmaError) {
    process.stderr.write(`kazma: ${error.message}\n`);
    return error.code === 'config_invalid' ? EXIT.usage : EXIT.failure;
  }
  process.stderr.write(`kazma: unexpected error: ${(error as Error)?.stack ?? String(error)}\n`);
  return EXIT.failure;
}

export const CONFIG_OPTION = { config: { type: 'string', short: 'c' }, help: { type: 'boolean', short: 'h' } } as const;

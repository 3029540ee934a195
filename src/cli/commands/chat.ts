import type { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { CONSOLE_CHAT, ConsoleSession, ConsoleSurface } from '../../adapters/console/index.ts';
import type { LoadedConfig } from '../../core/config/index.ts';
import { dataDirOwner } from '../../core/db/index.ts';
import { createLogger, type Logger } from '../../core/log/index.ts';
import type { ToolDefinition } from '../../core/tools/index.ts';
import { isModelConfigured, modelLabel } from '../../core/agent/index.ts';
import { startKazma } from '../../main.ts';
import { kazmaVersion } from '../version.ts';
import { CONFIG_OPTION, EXIT, explain, loadOrExplain, type Subcommand } from '../common.ts';

export const chat: Subcommand = {
  summary: 'talk to Kazma in this terminal (runs Kazma in-process; scriptable over stdin)',
  usage: `Usage: kazma chat [--config FILE]

Starts Kazma in-process (same config, database, workers and enabled platforms as \`kazma start\`) with
this terminal as one more chat. Replies print as "kazma> ..." lines; an approval prints an
"[approval]" block and takes the next line as its answer: o (once), a (always), d (deny).
With stdin not a terminal it reads one message per line and exits at end of input once every
turn has finished. Logs go to stderr.`,
  async run(args) {
    const { values } = parseArgs({ args, options: CONFIG_OPTION });
    try {
      const loaded = loadOrExplain(values.config);
      const interactive = Boolean(process.stdin.isTTY);
      // Logs go to stderr so stdout stays the conversation; a person at a terminal sees warnings only.
      const level = interactive && loaded.config.log.level === 'info' ? 'warn' : loaded.config.log.level;
      const logger = createLogger({
        level,
        secrets: loaded.secrets,
        destination: process.stderr,
        pretty: Boolean(process.stderr.isTTY),
      });
      return await runChat({ loaded, logger, input: process.stdin, output: process.stdout, interactive });
    } catch (error) {
      return explain(error);
    }
  },
};

/** Options for {@link runChat}. */
export interface RunChatOptions {
  loaded: LoadedConfig;
  logger: Logger;
  input: Readable;
  output: Writable;
  interactive: boolean;
  /** Extra tools (tests register their own). */
  tools?: ToolDefinition[];
}

/** Runs Kazma with a console session attached until the input ends; returns the exit code. */
export async function runChat(options: RunChatOptions): Promise<number> {
  const surface = new ConsoleSurface({ output: options.output, interactive: options.interactive });
  const beside = besideOwner(options.loaded, options.logger);
  // Listening before the start: a SIGTERM during it ends the session before it begins, and Kazma stops
  // gracefully once started, instead of Node's default of ending the process mid-start.
  let signalled = false;
  const onSignal = () => {
    signalled = true;
    options.input.destroy(); // ends the session like end of input
  };
  process.once('SIGTERM', onSignal);
  // Attached before start-up recovery, so a turn healed at start answers here.
  const kazma = await startKazma({
    loaded: beside ?? options.loaded,
    besideOwner: beside !== undefined,
    // The terminal is this chat: a taken http.port is stepped around (said once), unless a platform needs it.
    httpPortTaken: 'free-port',
    logger: options.logger,
    surfaces: [surface],
    ...(options.tools && { tools: options.tools }),
  }).catch((error: unknown) => {
    process.off('SIGTERM', onSignal);
    throw error;
  });
  if (options.interactive && !signalled) surface.print(await banner(kazma));
  const session = new ConsoleSession({
    pipeline: kazma.core.pipeline,
    surface,
    actor: kazma.core.access.consoleActor(),
    input: options.input,
    output: options.output,
    interactive: options.interactive,
    idle: () => kazma.core.idle(),
  });
  try {
    if (!signalled) await session.run();
  } finally {
    process.off('SIGTERM', onSignal);
    await kazma.stop();
  }
  return EXIT.ok;
}

/**
 * Beside a `kazma start` that owns the embedded database: the configuration this chat runs with — no chat
 * platform (the owner holds their connections; a second Telegram poller would end the owner's) and any free
 * HTTP port. Undefined when no other Kazma owns data_dir, or the database is PostgreSQL.
 */
function besideOwner(loaded: LoadedConfig, logger: Logger): LoadedConfig | undefined {
  const { config } = loaded;
  const owner = config.database.url ? undefined : dataDirOwner(config.data_dir);
  if (owner === undefined) return undefined;
  logger.info({ owner }, 'another Kazma owns data_dir: this chat goes through it, and its platforms stay there');
  const off = <T extends { enabled: boolean }>(platform: T): T => ({ ...platform, enabled: false });
  return {
    ...loaded,
    config: {
      ...config,
      telegram: off(config.telegram),
      slack: off(config.slack),
      discord: off(config.discord),
      http: { ...config.http, port: 0 },
    },
  };
}

/** One line on a terminal at start: what you are talking to, and on which thread. */
async function banner(kazma: Awaited<ReturnType<typeof startKazma>>): Promise<string> {
  const { model } = kazma.loaded.config;
  const talking = isModelConfigured(model) ? modelLabel(model) : 'no model configured (see kazma doctor)';
  const thread = await kazma.core.threads.current(CONSOLE_CHAT);
  return `Kazma ${kazmaVersion()} · ${talking} · thread ${thread} · /help lists commands, Ctrl-D leaves`;
}

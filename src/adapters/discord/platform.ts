// The Discord adapter's lifecycle: built (surface attached) before the HTTP server listens; started
// (gateway login, READY, slash commands) after; stopped first at shutdown, which closes the gateway only
// — running turns still reply through Kazma's own REST client while the core drains.
import { Events, RESTEvents, type Client, type REST } from 'discord.js';
import { type PlatformCoreLink, TypingRefresher } from '../../core/chat/index.ts';
import type { KazmaConfig } from '../../core/config/index.ts';
import { KazmaError } from '../../core/errors.ts';
import type { Logger } from '../../core/log/index.ts';
import { createGatewayClient, createRest, type RestOptions } from './client.ts';
import { registerCommands, slashCommands } from './commands.ts';
import { DirectMessages } from './dms.ts';
import { DiscordGatewayError, loginError } from './errors.ts';
import { DiscordInbound } from './inbound.ts';
import { Interactions } from './interactions.ts';
import { DiscordSurface } from './outbound.ts';

/** Discord's typing indicator lasts about 10 s per signal; refresh a little sooner. */
const DISCORD_TYPING_MS = 8000;

/** Options for {@link DiscordPlatform}. Timing options exist for operators and tests alike. */
export interface DiscordPlatformOptions {
  config: KazmaConfig['discord'];
  core: PlatformCoreLink;
  logger: Logger;
  rest?: RestOptions;
  /** Typing refresh period; default 8000 ms. */
  typingIntervalMs?: number;
  /** Pauses between attempts to record an event while the database is unreachable; default 0.25 s doubling to 8 s. */
  recordRetryDelaysMs?: readonly number[];
  /** How long start() waits for the gateway's READY; default 30,000 ms. */
  readyTimeoutMs?: number;
}

export class DiscordPlatform {
  readonly name = 'discord';
  readonly client: Client;
  readonly rest: REST;
  readonly surface: DiscordSurface;
  readonly inbound: DiscordInbound;
  readonly #o: DiscordPlatformOptions;
  readonly #typing: TypingRefresher;
  #accepting = true;

  constructor(options: DiscordPlatformOptions) {
    this.#o = options;
    const { config, logger } = options;
    this.rest = createRest({ token: config.token, api: config.api, ...options.rest });
    this.client = createGatewayClient({ api: config.api });
    const interactions = new Interactions({ rest: this.rest, logger });
    const dms = new DirectMessages();
    this.#typing = new TypingRefresher({
      send: (chat) => this.surface.signalTyping(chat),
      intervalMs: options.typingIntervalMs ?? DISCORD_TYPING_MS,
    });
    this.surface = new DiscordSurface({
      rest: this.rest,
      api: config.api,
      interactions,
      typing: this.#typing,
      dms,
      logger,
    });
    this.inbound = new DiscordInbound({
      pipeline: options.core.pipeline,
      me: () => this.client.user?.id,
      guildMessages: config.guild_messages,
      interactions,
      typing: this.#typing,
      dms,
      logger,
      tellUnrecorded: (chat, text) => this.surface.send(chat, { text }),
      ...(options.recordRetryDelaysMs && { recordRetryDelaysMs: options.recordRetryDelaysMs }),
    });
    this.client.on(Events.MessageCreate, (message) => {
      if (this.#accepting) this.inbound.takeMessage(message);
    });
    this.client.on(Events.InteractionCreate, (interaction) => {
      if (this.#accepting) this.inbound.takeInteraction(interaction);
    });
    this.#watch(logger);
    options.core.attachSurface(this.surface);
  }

  /** Logs in to the gateway, waits for READY, then registers the slash commands. */
  async start(): Promise<void> {
    const { config, logger } = this.#o;
    await this.#login();
    const applicationId = config.application_id || this.client.application?.id || this.client.user!.id;
    await registerCommands(this.rest, applicationId, slashCommands(this.#o.core.commands.list()), logger);
    logger.info(
      { bot: this.client.user?.username, application: applicationId, guilds: this.client.guilds.cache.size },
      'discord started',
    );
  }

  /** Closes the gateway (intake); replies of running turns still go out through REST. */
  async stop(): Promise<void> {
    this.#accepting = false;
    await this.client.destroy();
    this.#typing.stopAll();
  }

  /** Resolves when every event taken so far has been handled. */
  idle(): Promise<void> {
    return this.inbound.idle();
  }

  async #login(): Promise<void> {
    const { config } = this.#o;
    const timeoutMs = this.#o.readyTimeoutMs ?? 30_000;
    await new Promise<void>((resolve, reject) => {
      const done = (error?: unknown): void => {
        clearTimeout(timer);
        this.client.off(Events.ClientReady, onReady);
        this.client.off(Events.ShardDisconnect, onClosed);
        if (error) reject(error);
        else resolve();
      };
      const onReady = (): void => done();
      const onClosed = ({ code }: { code: number }): void => done(new DiscordGatewayError(code));
      const timer = setTimeout(
        () =>
          done(
            new KazmaError(
              'discord_not_ready',
              `Discord's gateway sent no READY within ${timeoutMs} ms; check discord.api and the network`,
            ),
          ),
        timeoutMs,
      );
      this.client.once(Events.ClientReady, onReady);
      this.client.on(Events.ShardDisconnect, onClosed);
      this.client.login(config.token).catch((error: unknown) => done(loginError(error, config.api)));
    }).catch(async (error: unknown) => {
      await this.client.destroy();
      throw error;
    });
  }

  /** Connection changes and rate limits, in the log; discord.js itself resumes or reconnects. */
  #watch(logger: Logger): void {
    this.client.on(Events.Error, (error) => logger.error({ err: error }, 'discord client error'));
    this.client.on(Events.ShardError, (error) =>
      logger.warn({ err: error }, 'discord gateway connection error; reconnecting'),
    );
    this.client.on(Events.ShardReconnecting, () => logger.warn('discord gateway connection lost; reconnecting'));
    this.client.on(Events.ShardResume, (_id, replayed) => logger.info({ replayed }, 'discord gateway resumed'));
    this.client.on(Events.ShardDisconnect, ({ code }) =>
      logger.error({ err: new DiscordGatewayError(code) }, 'discord gateway closed for good'),
    );
    this.rest.on(RESTEvents.RateLimited, (info) =>
      logger.warn(
        { route: info.route, retryAfterMs: info.retryAfter, scope: info.scope },
        'discord rate limit: waiting',
      ),
    );
  }
}

// The Slack adapter's lifecycle: built (surface attached, Request URL mounted) before the HTTP server
// listens; started (auth.test says who the bot is and that the token works, then Socket Mode connects
// when configured) after; stopped first at shutdown, which ends intake only — running turns still
// reply through the surface while the core drains.
import { App, type webApi } from '@slack/bolt';
import type { Hono } from 'hono';
import type { PlatformCoreLink } from '../../core/chat/index.ts';
import { assertPlatformSection, type KazmaConfig } from '../../core/config/index.ts';
import type { Logger } from '../../core/log/index.ts';
import { createWebClient, webClientOptions, type SlackRetryOptions } from './client.ts';
import { SlackApiError, slackError } from './errors.ts';
import type { SlackIdentity } from './ids.ts';
import { SlackInbound } from './inbound.ts';
import { boltLogger } from './log.ts';
import { SlackSurface } from './outbound.ts';
import { SlackHttpReceiver } from './receiver.ts';
import { openReasonModal } from './reasons.ts';
import { ResponseUrls } from './responses.ts';
import { KnownThreads } from './threads.ts';

/** Options for {@link SlackPlatform}. Timing options exist for operators and tests alike. */
export interface SlackPlatformOptions {
  config: KazmaConfig['slack'];
  /** Slack's slash command is declared in the app manifest, so the command list is not needed here. */
  core: Pick<PlatformCoreLink, 'pipeline' | 'attachSurface'>;
  /** Kazma's HTTP app; `/slack/events` is mounted on it in http mode. */
  app: Hono;
  logger: Logger;
  retry?: SlackRetryOptions;
  /** A request not acknowledged by then is answered 404; default 3001 ms. */
  ackTimeoutMs?: number;
}

export class SlackPlatform {
  readonly name = 'slack';
  readonly client: webApi.WebClient;
  readonly bolt: App;
  readonly surface: SlackSurface;
  readonly inbound: SlackInbound;
  /** The Request URL route's receiver (http mode only). */
  readonly receiver: SlackHttpReceiver | undefined;
  readonly #o: SlackPlatformOptions;
  #me: SlackIdentity | undefined;
  #accepting = false;
  #socket = false;

  constructor(options: SlackPlatformOptions) {
    this.#o = options;
    const { config, logger } = options;
    // Loading kazma.yaml applied the same rules; a platform built directly (tests) gets them here.
    assertPlatformSection('slack', config);
    this.client = createWebClient({
      token: config.token,
      apiUrl: config.api_url,
      logger,
      ...(options.retry && { retry: options.retry }),
    });
    const threads = new KnownThreads();
    const responses = new ResponseUrls();
    this.surface = new SlackSurface({
      client: this.client,
      token: config.token,
      apiUrl: config.api_url,
      responses,
      threads,
      team: () => this.#me?.teamId,
      logger,
    });
    this.inbound = new SlackInbound({
      pipeline: options.core.pipeline,
      me: () => this.#me,
      threads,
      responses,
      openReason: (input) => openReasonModal(this.client, config.api_url, input),
      logger,
    });
    const common = {
      // Kazma knows the bot from its own auth.test at start; Bolt needs no token check of its own.
      authorize: async () => ({ botToken: config.token, botId: this.#me?.botId, botUserId: this.#me?.userId }),
      ignoreSelf: false, // the pipeline drops Kazma's own messages (fromSelf), as on every platform
      convoStore: false as const, // conversations live in the core, not in Bolt's memory store
      logger: boltLogger(logger),
      clientOptions: webClientOptions(config.api_url, logger, options.retry),
    };
    if (config.mode === 'socket') {
      this.receiver = undefined;
      this.bolt = new App({ ...common, socketMode: true, appToken: config.app_token });
    } else {
      const ackTimeout = options.ackTimeoutMs === undefined ? {} : { ackTimeoutMs: options.ackTimeoutMs };
      this.receiver = new SlackHttpReceiver({
        signingSecret: config.signing_secret,
        logger,
        accepting: () => this.#accepting,
        ...ackTimeout,
      });
      this.bolt = new App({ ...common, receiver: this.receiver });
      this.receiver.mount(options.app);
    }
    this.bolt.error(async (error) => logger.error({ err: error }, 'a Slack listener failed'));
    this.inbound.register(this.bolt);
    options.core.attachSurface(this.surface);
  }

  /** Who the bot is (after start). */
  get me(): SlackIdentity | undefined {
    return this.#me;
  }

  /** Checks the token (auth.test), then connects Socket Mode or opens the Request URL. */
  async start(): Promise<void> {
    const { config, logger } = this.#o;
    let auth;
    try {
      auth = await this.client.auth.test();
    } catch (error) {
      throw slackError('auth.test', error, config.api_url);
    }
    this.#me = {
      userId: String(auth.user_id),
      botId: String(auth.bot_id),
      team: String(auth.team),
      ...(auth.team_id && { teamId: auth.team_id }),
      user: String(auth.user),
    };
    if (config.mode === 'socket') {
      try {
        await this.bolt.start();
      } catch (error) {
        throw socketError(error, config.api_url);
      }
      this.#socket = true;
    }
    this.#accepting = true;
    logger.info({ bot: this.#me.user, team: this.#me.team, mode: config.mode }, 'slack started');
  }

  /** Stops intake (the Request URL answers 503; Socket Mode disconnects); replies of running turns still go out. */
  async stop(): Promise<void> {
    this.#accepting = false;
    if (this.#socket) await this.bolt.stop();
    this.#socket = false;
  }

  /** Resolves when every request taken so far has been handled. */
  async idle(): Promise<void> {
    await this.receiver?.idle();
    await this.inbound.idle();
  }
}

/** Socket Mode could not connect: the app token is the usual cause, so the message names it. */
function socketError(error: unknown, apiUrl: string): unknown {
  const wrapped = slackError('apps.connections.open', error, apiUrl);
  if (!(wrapped instanceof SlackApiError)) return wrapped;
  return new SlackApiError('apps.connections.open', wrapped.error, {
    hint:
      'Socket Mode needs slack.app_token (SLACK_APP_TOKEN): an app-level token (xapp-…) with connections:write, ' +
      'and Socket Mode turned on in the app settings',
    cause: error,
  });
}

// The Telegram adapter's lifecycle: built (surface attached, webhook mounted) before the HTTP server
// listens; started (getMe, command menu, then polling or setWebhook) after; stopped first at shutdown,
// which ends intake only — running turns still reply through the surface while the core drains.
import type { Bot } from 'grammy';
import type { Hono } from 'hono';
import { type PlatformCoreLink, TypingRefresher } from '../../core/chat/index.ts';
import type { KazmaConfig } from '../../core/config/index.ts';
import type { Logger } from '../../core/log/index.ts';
import { CallbackAnswers, type AnswerFn } from './answers.ts';
import { CallbackCodec } from './cards.ts';
import { ALLOWED_UPDATES, createBot, type RetryOptions } from './client.ts';
import { TelegramPoller } from './poller.ts';
import { registerCommands } from './commands.ts';
import { isQueryGone, telegramError } from './errors.ts';
import { TelegramInbound } from './inbound.ts';
import { TelegramSurface } from './outbound.ts';
import { mountWebhook } from './webhook.ts';

/** Options for {@link TelegramPlatform}. Timing options exist for operators and tests alike. */
export interface TelegramPlatformOptions {
  config: KazmaConfig['telegram'];
  core: PlatformCoreLink;
  /** Kazma's HTTP app; the webhook route is mounted on it in webhook mode. */
  app: Hono;
  logger: Logger;
  retry?: RetryOptions;
  /** Typing refresh period; default 4000 ms. */
  typingIntervalMs?: number;
  /** How long a tap may wait for the core before a neutral answer; default 8000 ms. */
  answerTimeoutMs?: number;
}

export class TelegramPlatform {
  readonly name = 'telegram';
  readonly bot: Bot;
  readonly surface: TelegramSurface;
  readonly inbound: TelegramInbound;
  /** Long polling (polling mode); the offset moves only past recorded updates. */
  readonly poller: TelegramPoller;
  readonly #o: TelegramPlatformOptions;
  readonly #typing: TypingRefresher;
  #accepting = false;

  constructor(options: TelegramPlatformOptions) {
    this.#o = options;
    const { config, logger } = options;
    this.bot = createBot({
      token: config.token,
      apiRoot: config.api_root,
      ...(options.retry && { retry: options.retry }),
    });
    const answers = new CallbackAnswers({
      answer: this.#answerFn(),
      ...(options.answerTimeoutMs !== undefined && { timeoutMs: options.answerTimeoutMs }),
    });
    const codec = new CallbackCodec();
    this.#typing = new TypingRefresher({
      send: (chat) => this.surface.chatAction(chat),
      ...(options.typingIntervalMs !== undefined && { intervalMs: options.typingIntervalMs }),
    });
    this.surface = new TelegramSurface({
      api: this.bot.api,
      apiRoot: config.api_root,
      answers,
      codec,
      typing: this.#typing,
      logger,
    });
    this.inbound = new TelegramInbound({
      pipeline: options.core.pipeline,
      me: () => this.bot.botInfo,
      groups: config.groups,
      answers,
      codec,
      typing: this.#typing,
      logger,
    });
    this.poller = new TelegramPoller({ api: this.bot.api, take: (update) => this.inbound.take(update), logger });
    options.core.attachSurface(this.surface);
    if (config.mode === 'webhook') {
      mountWebhook(options.app, {
        secret: config.webhook_secret,
        accepting: () => this.#accepting,
        take: (update) => this.inbound.take(update),
        logger,
      });
    }
  }

  /** Checks the token (getMe), sets the command menu, then polls or registers the webhook. */
  async start(): Promise<void> {
    const { config, logger } = this.#o;
    try {
      await this.bot.init();
    } catch (error) {
      throw telegramError('getMe', error, config.api_root);
    }
    await registerCommands(this.bot.api, this.#o.core.commands.list(), logger);
    if (config.mode === 'webhook') {
      if (config.webhook_url) {
        await this.bot.api.setWebhook(config.webhook_url, {
          secret_token: config.webhook_secret,
          allowed_updates: [...ALLOWED_UPDATES],
        });
      } else {
        logger.warn(
          'telegram.webhook_url is empty: Kazma did not call setWebhook; make sure the webhook points at ' +
            '/telegram/webhook',
        );
      }
      this.#accepting = true;
      logger.info({ bot: this.bot.botInfo.username, mode: 'webhook' }, 'telegram started');
      return;
    }
    try {
      await this.poller.start((error) => {
        const wrapped = telegramError('getUpdates', error, config.api_root);
        logger.error({ err: wrapped }, 'telegram polling stopped; is another process polling with this token?');
      });
    } catch (error) {
      throw telegramError('deleteWebhook', error, config.api_root);
    }
    logger.info({ bot: this.bot.botInfo.username, mode: 'polling' }, 'telegram started');
  }

  /** Stops intake (polling, or the webhook answers 503); replies of running turns still go out. */
  async stop(): Promise<void> {
    this.#accepting = false;
    await this.poller.stop();
    this.#typing.stopAll();
  }

  /** Resolves when every update taken so far has been handled. */
  idle(): Promise<void> {
    return this.inbound.idle();
  }

  #answerFn(): AnswerFn {
    return async (queryId, { text, alert }) => {
      try {
        await this.bot.api.answerCallbackQuery(queryId, { ...(text && { text }), ...(alert && { show_alert: true }) });
        return true;
      } catch (error) {
        if (!isQueryGone(error)) this.#o.logger.warn({ err: error }, 'could not answer a Telegram button tap');
        return false;
      }
    };
  }
}

// Webhook mode: Telegram POSTs each update to `/telegram/webhook` on Kazma's HTTP server with the
// X-Telegram-Bot-Api-Secret-Token header. The answer tells Telegram what became of the update, so it
// is given only after the inbox holds it:
//   401 wrong or missing secret (checked in constant time; nothing is read further)
//   413 a body over the cap (refused unread)        400 not JSON, or not the shape of an update
//   503 not accepting (starting, stopping) or the update could not be recorded: Telegram delivers it again
//   200 recorded (or a redelivery already recorded); the turn runs on without holding the answer.
import { timingSafeEqual } from 'node:crypto';
import type { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { InboxUnavailableError } from '../../core/chat/index.ts';
import { InvalidInboundEventError } from '../../core/surface/index.ts';
import type { Logger } from '../../core/log/index.ts';

/** The path Kazma serves Telegram's webhook on. */
export const WEBHOOK_PATH = '/telegram/webhook';

/** Telegram's rule for secret_token: 1–256 characters of A-Z a-z 0-9 _ -. */
export const WEBHOOK_SECRET = /^[A-Za-z0-9_-]{1,256}$/;

/** Telegram's updates are a few KB; a larger body is not an update. */
export const WEBHOOK_MAX_BYTES = 1024 * 1024;

/** Options for {@link mountWebhook}. */
export interface WebhookOptions {
  secret: string;
  /** False before start and after stop: the route answers 503 and Telegram keeps the update. */
  accepting: () => boolean;
  /** Records one update (TelegramInbound.take). */
  take: (update: unknown) => Promise<'taken' | 'stopping'>;
  logger?: Logger;
  /** Default {@link WEBHOOK_MAX_BYTES}. */
  maxBytes?: number;
}

/** Mounts the route (before the server listens). */
export function mountWebhook(app: Hono, options: WebhookOptions): void {
  if (!WEBHOOK_SECRET.test(options.secret)) {
    throw new Error(
      'telegram.webhook_secret must be 1-256 characters of A-Z, a-z, 0-9, _ and - (set TELEGRAM_WEBHOOK_SECRET)',
    );
  }
  const expected = Buffer.from(options.secret);
  const limit = bodyLimit({
    maxSize: options.maxBytes ?? WEBHOOK_MAX_BYTES,
    onError: (c) => c.text('update too large', 413),
  });
  app.post(
    WEBHOOK_PATH,
    async (c, next) => {
      // The secret first: a stranger's body is never read, however large.
      const given = Buffer.from(c.req.header('x-telegram-bot-api-secret-token') ?? '');
      if (given.length !== expected.length || !timingSafeEqual(given, expected))
        return c.text('wrong secret token', 401);
      if (!options.accepting()) return c.text('Kazma is not accepting updates right now; retry later', 503);
      return next();
    },
    limit,
    async (c) => {
      let update: unknown;
      try {
        update = JSON.parse(await c.req.text());
      } catch {
        options.logger?.warn('a Telegram webhook body was not JSON; answered 400');
        return c.text('the body is not JSON', 400);
      }
      try {
        const taken = await options.take(update);
        return taken === 'taken' ? c.body(null, 200) : c.text('Kazma is stopping; retry later', 503);
      } catch (error) {
        if (error instanceof InvalidInboundEventError) {
          options.logger?.warn({ reason: error.message }, 'a malformed Telegram update was refused with 400');
          return c.text(error.message, 400);
        }
        if (error instanceof InboxUnavailableError) {
          options.logger?.error(
            { err: error },
            'a Telegram update could not be recorded; answered 503 so Telegram delivers it again',
          );
          return c.text('could not record the update; retry later', 503);
        }
        throw error;
      }
    },
  );
}

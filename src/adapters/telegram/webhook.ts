// Webhook mode: Telegram POSTs each update to `/telegram/webhook` on Kazma's HTTP server with the
// X-Telegram-Bot-Api-Secret-Token header. grammY's webhookCallback checks it in constant time and
// answers 401 (dispatching nothing) when it is wrong or missing. The handler only hands the update
// over, so Telegram gets its 200 at once; onTimeout 'return' is a second guard against a slow path.
import { webhookCallback, type Bot } from 'grammy';
import type { Hono } from 'hono';

/** The path Kazma serves Telegram's webhook on. */
export const WEBHOOK_PATH = '/telegram/webhook';

/** Telegram's rule for secret_token: 1–256 characters of A-Z a-z 0-9 _ -. */
export const WEBHOOK_SECRET = /^[A-Za-z0-9_-]{1,256}$/;

/**
 * Mounts the route (before the server listens). While `accepting()` is false — before start, after
 * stop — it answers 503, so Telegram keeps the update and delivers it again later.
 */
export function mountWebhook(app: Hono, bot: Bot, options: { secret: string; accepting: () => boolean }): void {
  if (!WEBHOOK_SECRET.test(options.secret)) {
    throw new Error('telegram.webhook_secret must be 1-256 characters of A-Z, a-z, 0-9, _ and - (set TELEGRAM_WEBHOOK_SECRET)');
  }
  const handle = webhookCallback(bot, 'hono', { secretToken: options.secret, onTimeout: 'return', timeoutMilliseconds: 9000 });
  app.post(WEBHOOK_PATH, async (c) => (options.accepting() ? handle(c) : c.text('Kazma is not accepting updates right now; retry later', 503)));
}

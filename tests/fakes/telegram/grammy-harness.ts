// Test helper: a real grammy Bot pointed at the fake (only `apiRoot` changes), with auto-retry
// configured so a broken fake fails fast instead of being retried forever (see platform-notes D).
import { autoRetry } from '@grammyjs/auto-retry';
import { Bot } from 'grammy';
import type { FakeTelegram } from './index.ts';

export interface RunningBot {
  bot: Bot;
  /** Errors thrown by handlers; tests assert it is empty so a swallowed failure cannot pass. */
  errors: unknown[];
  stop(): Promise<void>;
}

/** A Bot with auto-retry, not started. */
export function makeBot(fake: FakeTelegram): Bot {
  const bot = new Bot(fake.token, { client: { apiRoot: fake.apiRoot } });
  bot.api.config.use(
    autoRetry({ maxRetryAttempts: 2, maxDelaySeconds: 5, rethrowHttpErrors: true, rethrowInternalServerErrors: true }),
  );
  return bot;
}

/** Starts long polling after `setup` registered handlers; resolves once polling has begun. */
export async function startPolling(fake: FakeTelegram, setup: (bot: Bot) => void): Promise<RunningBot> {
  const bot = makeBot(fake);
  const errors: unknown[] = [];
  setup(bot);
  bot.catch((err) => {
    errors.push(err.error);
  });
  const running = bot.start();
  // start() runs getMe, then deleteWebhook, then polls. The poll is held (and so not yet recorded)
  // while the queue is empty; an update pushed from now on is delivered whether it comes before or after.
  await fake.calls.waitFor('deleteWebhook');
  return {
    bot,
    errors,
    async stop() {
      await bot.stop();
      await running;
    },
  };
}

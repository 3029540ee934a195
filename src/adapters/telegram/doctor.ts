// `kazma doctor` checks for Telegram: does the token work (getMe), and is the webhook where the
// configured mode expects it (getWebhookInfo). Each check resolves with what is fine or throws what
// is wrong and how to fix it.
import { Api } from 'grammy';
import { assertPlatformSection, type KazmaConfig } from '../../core/config/index.ts';
import type { DoctorCheck } from '../../core/doctor.ts';
import { telegramError } from './errors.ts';
import { WEBHOOK_PATH } from './webhook.ts';

/** The checks for an enabled Telegram: the token, then the webhook state. */
export function telegramChecks(config: KazmaConfig['telegram']): DoctorCheck[] {
  const apiRoot = config.api_root.replace(/\/+$/, '');
  const api = new Api(config.token, { apiRoot, timeoutSeconds: 15 });
  const call = async <T>(method: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw telegramError(method, error, apiRoot);
    }
  };
  return [
    {
      name: 'telegram token',
      run: async () => {
        assertPlatformSection('telegram', config); // the rules config check applies, e.g. the token is set
        const me = await call('getMe', () => api.getMe());
        return `bot @${me.username} (id ${me.id}) answers at ${apiRoot}`;
      },
    },
    {
      name: 'telegram webhook',
      run: async () => describeWebhook(config, await call('getWebhookInfo', () => api.getWebhookInfo())),
    },
  ];
}

interface WebhookInfo {
  url?: string;
  pending_update_count: number;
  last_error_message?: string;
}

/** What the webhook state means for the configured mode; throws when it keeps updates from arriving. */
export function describeWebhook(
  config: Pick<KazmaConfig['telegram'], 'mode' | 'webhook_url'>,
  info: WebhookInfo,
): string {
  const waiting = `${info.pending_update_count} update${info.pending_update_count === 1 ? '' : 's'} waiting`;
  if (config.mode === 'polling') {
    return info.url
      ? `a webhook is set (${info.url}); polling mode removes it at start (${waiting})`
      : `no webhook set, as polling mode needs (${waiting})`;
  }
  if (!info.url)
    throw new Error(
      `no webhook is set: set telegram.webhook_url to your public https://…${WEBHOOK_PATH} (Kazma registers it ` +
        `at start)`,
    );
  if (config.webhook_url && info.url !== config.webhook_url) {
    throw new Error(
      `Telegram posts to ${info.url}, but telegram.webhook_url is ${config.webhook_url}: restart Kazma to register it`,
    );
  }
  if (info.last_error_message && info.pending_update_count > 0) {
    throw new Error(
      `Telegram cannot deliver to ${info.url}: ${info.last_error_message} (${waiting}); check that the URL reaches ` +
        `Kazma and the secret matches`,
    );
  }
  return `Telegram posts to ${info.url} (${waiting})`;
}

// The Web API client Kazma uses: the real Slack at `slack.api_url`, Bearer-authenticated with the bot
// token. WebClient itself honours a 429's Retry-After (it pauses its queue that long, then retries) and
// retries transport errors and 5xx answers with a capped exponential backoff; `retry` bounds both, so a
// dead network costs a turn seconds, not WebClient's default half hour.
import { webApi } from '@slack/bolt';
import type { Logger } from '../../core/log/index.ts';
import { boltLogger } from './log.ts';

/** How Web API calls are retried; the defaults suit production, tests pass zero backoff. */
export interface SlackRetryOptions {
  /** Retries of one call (429, 5xx, transport errors); default 3. */
  retries?: number;
  /** First backoff before a retry, added after a 429's Retry-After wait; default 1000 ms. */
  minTimeoutMs?: number;
  /** Longest backoff between two retries; default 10,000 ms. */
  maxTimeoutMs?: number;
  /** One HTTP request's time limit; default 15,000 ms. */
  requestTimeoutMs?: number;
}

/** The WebClient options for `apiUrl` (a trailing slash is added when missing, as WebClient expects). */
export function webClientOptions(
  apiUrl: string,
  logger: Logger,
  retry: SlackRetryOptions = {},
): webApi.WebClientOptions {
  return {
    slackApiUrl: apiUrl.endsWith('/') ? apiUrl : `${apiUrl}/`,
    logger: boltLogger(logger),
    timeout: retry.requestTimeoutMs ?? 15_000,
    retryConfig: {
      retries: retry.retries ?? 3,
      factor: 2,
      minTimeout: retry.minTimeoutMs ?? 1000,
      maxTimeout: retry.maxTimeoutMs ?? 10_000,
    },
  };
}

/**
 * A WebClient for the bot token.
 * @example createWebClient({ token: 'xoxb-…', apiUrl: 'https://slack.com/api/', logger })
 */
export function createWebClient(options: {
  token: string;
  apiUrl: string;
  logger: Logger;
  retry?: SlackRetryOptions;
}): webApi.WebClient {
  return new webApi.WebClient(options.token, webClientOptions(options.apiUrl, options.logger, options.retry));
}

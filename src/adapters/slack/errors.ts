// Slack failures by domain, as WebClient separates them: the API said no (`ok: false`, or a 429 it was
// told not to wait for), or the request never got a proper answer (network, timeout, HTTP 5xx after the
// retries). Each becomes a KazmaError whose message says what to do.
import { webApi } from '@slack/bolt';
import { KazmaError } from '../../core/errors.ts';

/** The Web API refused a call. `error` is Slack's string: `invalid_auth`, `channel_not_found`, … */
export class SlackApiError extends KazmaError {
  readonly method: string;
  readonly error: string;
  /** Set when Slack rate-limited the call: how long it asked us to wait. */
  readonly retryAfterMs: number | undefined;
  /**
   * Refused for good (no such channel, not a member, archived): retrying changes nothing (core/errors.ts
   * isPermanentRefusal).
   */
  readonly permanent: boolean;

  constructor(method: string, error: string, options: { hint?: string; retryAfterMs?: number; cause?: unknown } = {}) {
    const code =
      error === 'ratelimited' ? 'slack_rate_limited' : AUTH_ERRORS.has(error) ? 'slack_unauthorized' : 'slack_api';
    super(code, `Slack refused ${method}: ${error}${options.hint ? `. ${options.hint}` : ''}`, {
      cause: options.cause,
    });
    this.method = method;
    this.error = error;
    this.retryAfterMs = options.retryAfterMs;
    this.permanent = PERMANENT_ERRORS.has(error);
  }
}

/**
 * Web API errors no retry can change: the destination is gone or closed to the app, or the message is not one Slack
 * takes.
 */
const PERMANENT_ERRORS = new Set([
  'channel_not_found',
  'not_in_channel',
  'is_archived',
  'user_not_found',
  'cannot_dm_bot',
  'restricted_action',
  'restricted_action_read_only_channel',
  'restricted_action_thread_only_channel',
  'restricted_action_non_threadable_channel',
  'msg_too_long',
  'no_text',
  'invalid_blocks',
  'too_many_attachments',
]);

/** Slack could not be reached, or kept answering with an HTTP error after the retries. */
export class SlackTransportError extends KazmaError {
  readonly method: string;
  constructor(method: string, detail: string, apiUrl: string, cause: unknown) {
    super(
      'slack_unreachable',
      `Slack could not be reached for ${method} at ${apiUrl}: ${detail}. Check the network or slack.api_url`,
      { cause },
    );
    this.method = method;
  }
}

const AUTH_ERRORS = new Set(['invalid_auth', 'not_authed', 'token_revoked', 'token_expired', 'account_inactive']);

/** What to do about a refusal, where we know: the common ones have one fix each. */
export function hintFor(error: string, needed?: string): string | undefined {
  if (AUTH_ERRORS.has(error))
    return (
      'The bot token is wrong or revoked: set slack.token (SLACK_BOT_TOKEN) to the Bot User OAuth Token ' +
      '(xoxb-…) of the installed app'
    );
  if (error === 'missing_scope')
    return (
      `The app lacks a scope${needed ? ` (${needed})` : ''}: add it under OAuth & Permissions (see ` +
      `slack-app-manifest.yaml) and reinstall the app`
    );
  if (error === 'channel_not_found')
    return 'Check the channel id (access.chats, approvals.channels) and that the app was added to the channel';
  if (error === 'not_in_channel') return 'Invite the app to the channel first: /invite @Kazma';
  if (error === 'ratelimited') return 'Slack rate-limited the app; the call was retried as long as allowed';
  return undefined;
}

interface WebApiErrorShape {
  code?: string;
  data?: { error?: string; needed?: string };
  retryAfter?: number;
  statusCode?: number;
  original?: Error;
  message?: string;
}

/** Turns any error of a Web API call into a KazmaError (other errors pass through unchanged). */
export function slackError(method: string, error: unknown, apiUrl: string): unknown {
  const e = error as WebApiErrorShape | undefined;
  const codes = webApi.ErrorCode;
  if (e?.code === codes.PlatformError) {
    const code = e.data?.error ?? 'unknown_error';
    return new SlackApiError(method, code, { hint: hintFor(code, e.data?.needed), cause: error });
  }
  if (e?.code === codes.RateLimitedError) {
    return new SlackApiError(method, 'ratelimited', {
      hint: hintFor('ratelimited'),
      retryAfterMs: (e.retryAfter ?? 0) * 1000,
      cause: error,
    });
  }
  if (e?.code === codes.HTTPError) return new SlackTransportError(method, `HTTP ${e.statusCode}`, apiUrl, error);
  if (e?.code === codes.RequestError)
    return new SlackTransportError(method, e.original?.message ?? e.message ?? 'request failed', apiUrl, error);
  // WebClient waited out every 429 it was allowed to and gave up with a plain Error.
  if (error instanceof Error && error.message.startsWith('A rate limit was exceeded')) {
    return new SlackApiError(method, 'ratelimited', { hint: hintFor('ratelimited'), cause: error });
  }
  return error;
}

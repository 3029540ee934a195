// Discord failures by domain, as @discordjs/rest separates them: the API said no (DiscordAPIError, after
// any 429 was waited out), the server kept failing (HTTPError: 5xx after `rest.retries`), or the request
// never got an answer (network errors, timeouts). Each becomes a KazmaError whose message says what to do.
import { DiscordAPIError, HTTPError, RateLimitError } from 'discord.js';
import { KazmaError } from '../../core/errors.ts';

/** Discord refused a call. `status` is the HTTP status, `discordCode` Discord's own (50013, 10003, …). */
export class DiscordApiError extends KazmaError {
  readonly route: string;
  readonly status: number;
  readonly discordCode: number | string;
  /** Set when the call was refused for a rate limit (only with rest.rejectOnRateLimit). */
  readonly retryAfterMs: number | undefined;
  /**
   * Refused for good (no such channel, no access, may not DM them): retrying changes nothing (core/errors.ts
   * isPermanentRefusal).
   */
  readonly permanent: boolean;

  constructor(route: string, error: DiscordAPIError | RateLimitError, hint?: string) {
    const limited = error instanceof RateLimitError;
    const status = limited ? 429 : error.status;
    const code = limited ? 'discord_rate_limited' : status === 401 ? 'discord_unauthorized' : 'discord_api';
    super(code, `Discord refused ${route}: ${error.message}${hint ? `. ${hint}` : ''}`, { cause: error });
    this.route = route;
    this.status = status;
    this.discordCode = limited ? 429 : error.code;
    this.retryAfterMs = limited ? error.retryAfter : undefined;
    // 403: no access or permission; 404: no such channel. (A 400 is most often a form Discord takes once fixed: not for
    // good.)
    this.permanent =
      !limited &&
      (status === 403 ||
        status === 404 ||
        [CODES.unknownChannel, CODES.missingAccess, CODES.cannotMessageUser, CODES.missingPermissions].includes(
          this.discordCode as never,
        ));
  }
}

/** Discord could not be reached, or kept answering 5xx after the retries. */
export class DiscordTransportError extends KazmaError {
  readonly route: string;
  constructor(route: string, error: Error, api: string) {
    super(
      'discord_unreachable',
      `Discord could not be reached for ${route} at ${api}: ${error.message}. Check the network or discord.api`,
      { cause: error },
    );
    this.route = route;
  }
}

/** Discord's error codes Kazma acts on (https://discord.com/developers/docs/topics/opcodes-and-status-codes). */
export const CODES = {
  unknownChannel: 10003,
  unknownMessage: 10008,
  unknownInteraction: 10062,
  missingAccess: 50001,
  cannotMessageUser: 50007,
  missingPermissions: 50013,
  alreadyAcknowledged: 40060,
} as const;

/** What to do about a refusal, where we know: the common ones have one fix each. */
function hintFor(error: DiscordAPIError): string | undefined {
  if (error.status === 401)
    return (
      'The bot token is wrong or was reset: set discord.token (DISCORD_TOKEN) to the token from the Developer ' +
      'Portal (Bot → Reset Token)'
    );
  if (error.code === CODES.unknownChannel)
    return 'Check the channel id (access.chats, approvals.channels) and that the bot can see the channel';
  if (error.code === CODES.missingAccess || error.code === CODES.missingPermissions) {
    return (
      'The bot lacks a permission in that channel: it needs View Channel, Send Messages, Send Messages in ' +
      'Threads and Embed Links'
    );
  }
  if (error.code === CODES.cannotMessageUser) return 'That user does not accept direct messages from the bot';
  return undefined;
}

/** Turns any error of a REST call into a KazmaError (errors that are neither pass through unchanged). */
export function discordError(route: string, error: unknown, api: string): unknown {
  if (error instanceof DiscordAPIError || error instanceof RateLimitError) {
    return new DiscordApiError(route, error, error instanceof DiscordAPIError ? hintFor(error) : undefined);
  }
  if (error instanceof KazmaError) return error;
  if (error instanceof HTTPError) return new DiscordTransportError(route, error, api);
  // undici: TypeError('fetch failed') or a system error (ECONNREFUSED, …); @discordjs/rest: AbortError on timeout.
  if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TypeError' || 'code' in error)) {
    return new DiscordTransportError(route, error, api);
  }
  return error;
}

/** True when `error` (raw or wrapped) carries Discord's `code`. */
export function hasCode(error: unknown, code: number): boolean {
  if (error instanceof DiscordApiError) return error.discordCode === code;
  return error instanceof DiscordAPIError && error.code === code;
}

/** The gateway closed for good (discord.js will not reconnect): what the close code means and the fix. */
export class DiscordGatewayError extends KazmaError {
  readonly closeCode: number;
  constructor(closeCode: number) {
    super(
      closeCode === 4004 ? 'discord_unauthorized' : 'discord_gateway',
      `Discord closed the gateway with ${closeCode}: ` + (GATEWAY_FIXES[closeCode] ?? `see ${GATEWAY_CLOSE_CODES_URL}`),
    );
    this.closeCode = closeCode;
  }
}

const GATEWAY_CLOSE_CODES_URL =
  'https://discord.com/developers/docs/topics/opcodes-and-status-codes#gateway-gateway-close-event-codes';

const GATEWAY_FIXES: Record<number, string> = {
  4004: 'the bot token was refused; set discord.token (DISCORD_TOKEN) to the token from the Developer Portal',
  4013: 'invalid intents; this is a Kazma bug, please report it',
  4014:
    'the Message Content intent is not enabled; turn on "Message Content Intent" in the Developer Portal (Bot → ' +
    'Privileged Gateway Intents)',
};

/** A failed `client.login()`: a refused token says so; anything else is wrapped like a REST failure. */
export function loginError(error: unknown, api: string): unknown {
  if (error instanceof Error && 'code' in error && error.code === 'TokenInvalid') {
    return new KazmaError('discord_unauthorized', `Discord refused the bot token at ${api}. ${GATEWAY_FIXES[4004]}`, {
      cause: error,
    });
  }
  return discordError('GET /gateway/bot', error, api);
}

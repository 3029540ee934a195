// Telegram failures by domain, as grammY separates them: the API said no (GrammyError), the request
// never got an answer (HttpError). Each becomes a KazmaError whose message says what to do.
import { GrammyError, HttpError } from 'grammy';
import { KazmaError } from '../../core/errors.ts';

/** The Bot API refused a call. `errorCode` is Telegram's (400, 403, 429, ...). */
export class TelegramApiError extends KazmaError {
  readonly method: string;
  readonly errorCode: number;
  readonly description: string;
  /** Set on 429: how long Telegram asked us to wait. */
  readonly retryAfterMs: number | undefined;
  /**
   * Refused for good (blocked, removed, no such chat): retrying changes nothing (core/errors.ts isPermanentRefusal).
   */
  readonly permanent: boolean;

  constructor(method: string, error: GrammyError, hint?: string) {
    const code =
      error.error_code === 429
        ? 'telegram_rate_limited'
        : error.error_code === 401
          ? 'telegram_unauthorized'
          : 'telegram_api';
    super(code, `Telegram refused ${method}: ${error.description}${hint ? `. ${hint}` : ''}`, { cause: error });
    this.method = method;
    this.errorCode = error.error_code;
    this.description = error.description;
    const after = error.parameters.retry_after;
    this.retryAfterMs = typeof after === 'number' ? after * 1000 : undefined;
    this.permanent = error.error_code === 403 || (error.error_code === 400 && PERMANENT_400.test(error.description));
  }
}

/** 400s no retry can change: the chat or person is gone, or the bot may not write there. */
const PERMANENT_400 = new RegExp(
  [
    'chat not found',
    'user not found',
    'PEER_ID_INVALID',
    'user is deactivated',
    'bot was kicked',
    'not enough rights',
    'have no rights',
    'CHAT_WRITE_FORBIDDEN',
    'CHAT_RESTRICTED',
    'message is too long',
  ].join('|'),
  'i',
);

/** Telegram could not be reached (DNS, TLS, connection reset, timeout). */
export class TelegramTransportError extends KazmaError {
  readonly method: string;
  constructor(method: string, error: HttpError, apiRoot: string) {
    super(
      'telegram_unreachable',
      `Telegram could not be reached for ${method} at ${apiRoot}: ${error.message}. Check the network or ` +
        `telegram.api_root`,
      { cause: error },
    );
    this.method = method;
  }
}

/** What to do about a refusal, where we know: the common ones have one fix each. */
function hintFor(error: GrammyError): string | undefined {
  if (error.error_code === 401)
    return 'The bot token is wrong or revoked: set telegram.token (TELEGRAM_TOKEN) to the token @BotFather gave you';
  if (error.error_code === 403)
    return (
      'The bot was blocked, removed from the chat, or may not write first: the user must open the bot and ' +
      'press Start'
    );
  if (/chat not found/i.test(error.description))
    return 'Check the chat id (access.chats, approvals.channels) and that the bot is a member';
  if (error.error_code === 429) return 'Telegram rate-limited the bot; the call was retried as long as allowed';
  return undefined;
}

/** Turns any error of an API call into a KazmaError (other errors pass through unchanged). */
export function telegramError(method: string, error: unknown, apiRoot: string): unknown {
  if (error instanceof GrammyError) return new TelegramApiError(method, error, hintFor(error));
  if (error instanceof HttpError) return new TelegramTransportError(method, error, apiRoot);
  return error;
}

const described = (error: unknown, pattern: RegExp): boolean =>
  error instanceof GrammyError && pattern.test(error.description);

/** An edit identical to the message: Telegram refuses it, but the message already shows what we want. */
export const isNotModified = (error: unknown): boolean => described(error, /message is not modified/i);

/** The message to edit is gone (deleted by someone, or its chat): no retry will bring it back. */
export const isMessageGone = (error: unknown): boolean => described(error, /message to edit not found|chat not found/i);

/** Our HTML did not parse: worth one retry as plain text rather than losing the message. */
export const isUnparsableEntities = (error: unknown): boolean => described(error, /can't parse entities/i);

/** The callback query expired or was already answered: the answer must go another way. */
export const isQueryGone = (error: unknown): boolean => described(error, /query is too old|query id is invalid/i);

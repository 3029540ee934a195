import { KazmaError } from '../errors.ts';

/**
 * Where a conversation happens, as one string: `<platform>:<chat>[:<thread>]`, e.g. `telegram:-100123:42`
 * (a forum topic), `slack:C0123:1712345678.000100` (a thread), `discord:987654`, `console:local`.
 * Each adapter encodes its own ids; the core only compares, stores and routes by the string.
 */
export type ChatRef = `${string}:${string}`;

/** The parts of a {@link ChatRef}. */
export interface ChatRefParts {
  platform: string;
  chat: string;
  thread?: string;
}

/** A string was not `<platform>:<chat>[:<thread>]`. */
export class InvalidChatRefError extends KazmaError {
  readonly value: string;
  constructor(value: string) {
    super(
      'chat_ref_invalid',
      `"${value}" is not a chat reference: expected <platform>:<chat>[:<thread>] without spaces`,
    );
    this.value = value;
  }
}

const PART = /^[^:\s]+$/;

/**
 * Splits a ChatRef; throws {@link InvalidChatRefError} when it is malformed.
 * @example parseChatRef('slack:C0123:1712.01') // { platform: 'slack', chat: 'C0123', thread: '1712.01' }
 */
export function parseChatRef(value: string): ChatRefParts {
  const parts = value.split(':');
  if (parts.length < 2 || parts.length > 3 || !parts.every((p) => PART.test(p))) throw new InvalidChatRefError(value);
  const [platform, chat, thread] = parts as [string, string, string?];
  return thread === undefined ? { platform, chat } : { platform, chat, thread };
}

/**
 * Joins the parts into a ChatRef; throws {@link InvalidChatRefError} when a part contains `:` or spaces.
 * @example formatChatRef({ platform: 'telegram', chat: '-100123' }) // 'telegram:-100123'
 */
export function formatChatRef(parts: ChatRefParts): ChatRef {
  const list = [parts.platform, parts.chat, ...(parts.thread === undefined ? [] : [parts.thread])];
  const joined = list.join(':');
  // Each part on its own: `{ chat: 'a:b' }` would otherwise join into a valid-looking ref with a thread.
  if (!list.every((p) => PART.test(p))) throw new InvalidChatRefError(joined);
  return joined as ChatRef;
}

/** True when `value` is a well-formed ChatRef. */
export function isChatRef(value: string): value is ChatRef {
  try {
    parseChatRef(value);
    return true;
  } catch {
    return false;
  }
}

/** The chat a thread belongs to: `slack:C1:171.2` → `slack:C1` (access lists name chats, not threads). */
export function chatOf(ref: ChatRef): ChatRef {
  const { platform, chat } = parseChatRef(ref);
  return `${platform}:${chat}`;
}

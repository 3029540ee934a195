// Telegram ids as the core sees them. A chat is `telegram:<chat id>`; a forum topic is its own
// conversation, `telegram:<chat id>:<message_thread_id>`. A message is known by its message_id, with
// the chat in MessageRef.chat. A person is their numeric user id, never their (changeable) name.
import type { Message as TgMessage, User } from 'grammy/types';
import { formatChatRef, parseChatRef, type Actor, type ChatRef, type MessageRef } from '../../core/surface/index.ts';

export const PLATFORM = 'telegram';

/** Where to send in Telegram: the chat id, and the forum topic when the ChatRef names one. */
export interface TelegramTarget {
  chatId: number | string;
  threadId?: number;
}

/** The ChatRef of a message: its chat, plus its topic when it was written in a forum topic. */
export function chatRefOf(message: Pick<TgMessage, 'chat' | 'message_thread_id' | 'is_topic_message'>): ChatRef {
  const topic = message.is_topic_message === true && message.message_thread_id !== undefined;
  return formatChatRef({
    platform: PLATFORM,
    chat: String(message.chat.id),
    ...(topic && { thread: String(message.message_thread_id) }),
  });
}

/**
 * Reads a Telegram ChatRef; numeric ids become numbers (channels by @name stay strings).
 * @example targetOf('telegram:-100123:42') // { chatId: -100123, threadId: 42 }
 */
export function targetOf(chat: ChatRef): TelegramTarget {
  const parts = parseChatRef(chat);
  if (parts.platform !== PLATFORM) throw new Error(`${chat} is not a Telegram chat reference`);
  const chatId = /^-?\d+$/.test(parts.chat) ? Number(parts.chat) : parts.chat;
  return parts.thread === undefined ? { chatId } : { chatId, threadId: Number(parts.thread) };
}

/** The key that names one bot message in any of its chat's topics: `<chat id>/<message id>`. */
export function messageKey(ref: MessageRef): string {
  return messageKeyOf(targetOf(ref.chat).chatId, ref.id);
}

/** {@link messageKey} from the raw ids (a tapped message as Telegram describes it). */
export function messageKeyOf(chatId: number | string, messageId: number | string): string {
  return `${chatId}/${messageId}`;
}

/** A sent message's reference. */
export function messageRefOf(chat: ChatRef, messageId: number): MessageRef {
  return { chat, id: String(messageId) };
}

/** The numeric message id of a reference made by {@link messageRefOf}. */
export function messageIdOf(ref: MessageRef): number {
  const id = Number(ref.id);
  if (!Number.isSafeInteger(id)) throw new Error(`"${ref.id}" is not a Telegram message id`);
  return id;
}

/** A person's display name: first and last name, else @username, else the id. */
export function displayNameOf(user: Pick<User, 'id' | 'first_name' | 'last_name' | 'username'>): string {
  const full = [user.first_name, user.last_name].filter(Boolean).join(' ').trim();
  return full || (user.username ? `@${user.username}` : String(user.id));
}

/** The Actor for a Telegram user. */
export function actorOf(user: Pick<User, 'id' | 'first_name' | 'last_name' | 'username'>): Actor {
  return { platform: PLATFORM, id: String(user.id), displayName: displayNameOf(user) };
}

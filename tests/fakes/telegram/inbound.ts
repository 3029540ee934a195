// What users do, turned into the Updates Telegram would produce: a message (with bot_command
// entities, which grammy's bot.command() needs) or a tap on a button that really is on the message.
// Misuse by a test (a private chat whose id is not the sender's, a tap on a missing button) throws,
// because Telegram could never produce such an update and a test built on one would prove nothing.
import type { FakeState } from './methods.ts';
import type { ChatType, TgChat, TgEntity, TgMessage, TgUpdate, TgUser } from './wire.ts';
import { unixNow } from './wire.ts';

/** A user as tests describe one: `id` is required, the rest gets realistic defaults. */
export type UserInput = Partial<TgUser> & { id: number };

export interface UserMessageInput {
  chatId: number;
  from: UserInput;
  text: string;
  /** Default: 'private' for a positive id, 'supergroup' for -100… ids or topics, else 'group'. */
  chatType?: ChatType;
  /** Forum topic: the chat becomes a forum supergroup and the message carries the thread id. */
  messageThreadId?: number;
  /** message_id of a bot message this one replies to. */
  replyToBotMessage?: number;
  chatTitle?: string;
}

export interface TapInput {
  chatId: number;
  messageId: number;
  from: UserInput;
  data: string;
}

export const fullUser = (u: UserInput): TgUser => ({ is_bot: false, first_name: `User ${u.id}`, ...u });

export function chatFor(input: Omit<UserMessageInput, 'text'>, from: TgUser): TgChat {
  const { chatId, messageThreadId } = input;
  const type: ChatType =
    input.chatType ??
    (chatId > 0
      ? 'private'
      : messageThreadId !== undefined || String(chatId).startsWith('-100')
        ? 'supergroup'
        : 'group');
  if (type === 'private') {
    if (chatId !== from.id)
      throw new Error(`fake-telegram: a private chat's id is its user's id (${chatId} ≠ ${from.id})`);
    return { id: chatId, type, first_name: from.first_name, ...(from.username ? { username: from.username } : {}) };
  }
  return {
    id: chatId,
    type,
    title: input.chatTitle ?? `Chat ${chatId}`,
    ...(messageThreadId !== undefined ? { is_forum: true } : {}),
  };
}

/** bot_command entities for every `/command` or `/command@bot` starting a word, as Telegram marks them. */
export function commandEntities(text: string): TgEntity[] {
  const entities: TgEntity[] = [];
  for (const m of text.matchAll(/(^|\s)(\/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{3,32})?)(?=$|\s|[.,!?;:])/g)) {
    entities.push({ type: 'bot_command', offset: m.index + m[1]!.length, length: m[2]!.length });
  }
  return entities;
}

/** Builds, remembers and queues the update for a user's text message. */
export function userMessage(s: FakeState, input: UserMessageInput): TgUpdate {
  if (input.text.trim() === '') throw new Error('fake-telegram: Telegram clients cannot send an empty message');
  const from = fullUser(input.from);
  const chat = chatFor(input, from);
  s.store.addChat(chat);
  let replyTo: TgMessage | undefined;
  if (input.replyToBotMessage !== undefined) {
    const target = s.store.findBot(chat.id, input.replyToBotMessage);
    if (!target)
      throw new Error(`fake-telegram: no bot message ${input.replyToBotMessage} in chat ${chat.id} to reply to`);
    replyTo = s.store.view(target);
  }
  const entities = commandEntities(input.text);
  const message: TgMessage = {
    message_id: s.store.nextMessageId(chat.id),
    from,
    chat: s.store.chat(chat.id),
    date: unixNow(),
    ...(input.messageThreadId !== undefined
      ? { message_thread_id: input.messageThreadId, is_topic_message: true as const }
      : {}),
    ...(replyTo ? { reply_to_message: replyTo } : {}),
    text: input.text,
    ...(entities.length > 0 ? { entities } : {}),
  };
  s.store.addUserMessage(message);
  return s.hub.push({ message });
}

let querySeq = 0;

/** A tap on an inline button: valid only if the message currently shows a button with that data. */
export function tap(s: FakeState, input: TapInput): TgUpdate {
  const target = s.store.findBot(input.chatId, input.messageId);
  if (!target) throw new Error(`fake-telegram: no live bot message ${input.messageId} in chat ${input.chatId}`);
  const buttons = target.reply_markup?.inline_keyboard.flat() ?? [];
  if (!buttons.some((b) => b.callback_data === input.data)) {
    const shown =
      buttons
        .map((b) => b.callback_data)
        .filter(Boolean)
        .join(', ') || 'none';
    throw new Error(
      `fake-telegram: message ${input.messageId} has no button with data ${JSON.stringify(input.data)} (shown: ${shown})`,
    );
  }
  // Real query ids are long numeric strings; chat_instance is stable per chat.
  const id = `${4_000_000_000_000_000n + BigInt(++querySeq)}`;
  s.queries.set(id, { answered: false });
  return s.hub.push({
    callback_query: {
      id,
      from: fullUser(input.from),
      message: s.store.view(target),
      chat_instance: `${BigInt(input.chatId) * 7919n + 104729n}`,
      data: input.data,
    },
  });
}

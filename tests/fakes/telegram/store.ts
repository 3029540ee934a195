// The fake's memory of chats and messages. A chat exists once a user has written in it (or a test
// registered it), because the real API answers "chat not found" for chats the bot never met — a
// ChatRef encoding bug (thread id sent as chat id) must fail here the way it fails in production.
// Message ids are per chat and increase for user and bot messages alike.
import { canonical, type TextContent } from './content.ts';
import { badRequest, clone, unixNow, type TgChat, type TgInlineKeyboard, type TgMessage, type TgUser } from './wire.ts';

/** One version of a bot message's content, kept in `history` when the message is edited. */
export interface StoredVersion extends TextContent {
  reply_markup?: TgInlineKeyboard;
  at: number;
}

/** A message the bot sent: its current content plus every earlier version, oldest first. */
export interface StoredMessage extends StoredVersion {
  message_id: number;
  chat_id: number;
  message_thread_id?: number;
  date: number;
  edit_date?: number;
  deleted: boolean;
  history: StoredVersion[];
}

interface ChatState {
  chat: TgChat;
  lastId: number;
  bot: StoredMessage[];
  user: Map<number, TgMessage>;
}

export class MessageStore {
  private chats = new Map<number, ChatState>();

  constructor(private readonly bot: TgUser) {}

  /** Registers (or refreshes) a chat the bot can see. */
  addChat(chat: TgChat): void {
    const state = this.chats.get(chat.id);
    if (state) state.chat = { ...state.chat, ...chat };
    else this.chats.set(chat.id, { chat: { ...chat }, lastId: 0, bot: [], user: new Map() });
  }

  /** The chat, or the real "chat not found" error. */
  chat(chatId: number): TgChat {
    return this.state(chatId).chat;
  }

  /** Allocates the next message id in the chat. */
  nextMessageId(chatId: number): number {
    return ++this.state(chatId).lastId;
  }

  /** Remembers a message a user sent, so replies to it and deletes of it can be checked. */
  addUserMessage(message: TgMessage): void {
    this.state(message.chat.id).user.set(message.message_id, message);
  }

  /** Stores a new bot message and returns it as the API returns it. */
  addBotMessage(chatId: number, content: StoredVersion, threadId?: number): TgMessage {
    const state = this.state(chatId);
    const stored: StoredMessage = {
      ...content,
      message_id: ++state.lastId,
      chat_id: chatId,
      date: unixNow(),
      deleted: false,
      history: [],
      ...(threadId !== undefined ? { message_thread_id: threadId } : {}),
    };
    state.bot.push(stored);
    return this.view(stored);
  }

  /** A live bot message, or `undefined`. */
  findBot(chatId: number, messageId: number): StoredMessage | undefined {
    return this.state(chatId).bot.find((m) => m.message_id === messageId && !m.deleted);
  }

  /** Any live message id in the chat, from either side. */
  exists(chatId: number, messageId: number): boolean {
    return this.findBot(chatId, messageId) !== undefined || this.state(chatId).user.has(messageId);
  }

  /** The user message with that id, if any (reply targets). */
  userMessage(chatId: number, messageId: number): TgMessage | undefined {
    return this.state(chatId).user.get(messageId);
  }

  /**
   * Replaces a bot message's content. Identical text, entities and keyboard is the real
   * "message is not modified" error; otherwise the old version moves to `history`.
   */
  edit(chatId: number, messageId: number, next: StoredVersion): TgMessage {
    const msg = this.findBot(chatId, messageId);
    if (!msg) throw badRequest('message to edit not found');
    const same =
      msg.text === next.text &&
      canonical(msg.entities) === canonical(next.entities) &&
      canonical(msg.reply_markup ?? null) === canonical(next.reply_markup ?? null);
    if (same) {
      throw badRequest(
        'message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
      );
    }
    msg.history.push(versionOf(msg));
    msg.text = next.text;
    msg.raw_text = next.raw_text;
    msg.entities = next.entities;
    msg.at = next.at;
    msg.edit_date = unixNow();
    if (next.parse_mode !== undefined) msg.parse_mode = next.parse_mode;
    else delete msg.parse_mode;
    if (next.reply_markup !== undefined) msg.reply_markup = next.reply_markup;
    else delete msg.reply_markup; // an edit without reply_markup removes the keyboard, as in Telegram
    return this.view(msg);
  }

  /** Marks a message deleted (bot messages stay visible to tests with `includeDeleted`). */
  delete(chatId: number, messageId: number): void {
    const state = this.state(chatId);
    const bot = this.findBot(chatId, messageId);
    if (bot) bot.deleted = true;
    else if (!state.user.delete(messageId)) throw badRequest('message to delete not found');
  }

  /** The bot's messages in a chat, oldest first, as deep copies. */
  list(chatId: number, includeDeleted = false): StoredMessage[] {
    const state = this.chats.get(chatId);
    return clone((state?.bot ?? []).filter((m) => includeDeleted || !m.deleted));
  }

  /** The wire Message for a stored bot message: `from` is the bot, thread id preserved. */
  view(m: StoredMessage): TgMessage {
    const chat = this.chat(m.chat_id);
    return clone({
      message_id: m.message_id,
      from: this.bot,
      chat,
      date: m.date,
      ...(m.message_thread_id !== undefined ? { message_thread_id: m.message_thread_id } : {}),
      ...(m.message_thread_id !== undefined && chat.is_forum ? { is_topic_message: true as const } : {}),
      ...(m.edit_date !== undefined ? { edit_date: m.edit_date } : {}),
      text: m.text,
      ...(m.entities.length > 0 ? { entities: m.entities } : {}),
      ...(m.reply_markup ? { reply_markup: m.reply_markup } : {}),
    });
  }

  private state(chatId: number): ChatState {
    const state = this.chats.get(chatId);
    if (!state) throw badRequest('chat not found');
    return state;
  }
}

/** The content part of a message: what an edit replaces and `history` keeps. */
export function versionOf(m: StoredVersion): StoredVersion {
  return {
    text: m.text,
    raw_text: m.raw_text,
    entities: m.entities,
    at: m.at,
    ...(m.parse_mode !== undefined ? { parse_mode: m.parse_mode } : {}),
    ...(m.reply_markup !== undefined ? { reply_markup: m.reply_markup } : {}),
  };
}

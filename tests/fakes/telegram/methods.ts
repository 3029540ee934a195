// The Bot API methods the fake implements, each with the real validation and error wording.
// A handler mutates state and returns the result; the server records the call afterwards.
import { chatIdOf, optBool, optInt, optStr, reqInt, type Params } from './body.ts';
import { readMarkup, readText } from './content.ts';
import type { FileStore } from './files.ts';
import { versionOf, type MessageStore } from './store.ts';
import type { UpdateHub } from './updates.ts';
import { UPLOAD_METHODS } from './uploads.ts';
import { TelegramApiError, badRequest, type TgUser } from './wire.ts';

export interface BotCommand {
  command: string;
  description: string;
}

/** Everything the methods read and change. `queries` holds callback queries a user created by tapping. */
export interface FakeState {
  bot: TgUser;
  store: MessageStore;
  hub: UpdateHub;
  queries: Map<string, { answered: boolean }>;
  commands: Map<string, BotCommand[]>;
  files: FileStore;
}

export interface Outcome {
  result: unknown;
  description?: string;
}
type Handler = (s: FakeState, p: Params, signal: AbortSignal) => Outcome | Promise<Outcome>;

const CHAT_ACTIONS = new Set([
  'typing',
  'upload_photo',
  'record_video',
  'upload_video',
  'record_voice',
  'upload_voice',
  'upload_document',
  'choose_sticker',
  'find_location',
  'record_video_note',
  'upload_video_note',
]);

const QUERY_GONE = 'query is too old and response timeout expired or query ID is invalid';

const ok = (result: unknown, description?: string): Outcome => ({ result, ...(description ? { description } : {}) });

// Inline-message edits (inline_message_id) need inline mode, which this fake does not model.
function requireChatMessage(p: Params): { chatId: number; messageId: number } {
  if (p.inline_message_id !== undefined)
    throw new TelegramApiError(501, 'fake-telegram: inline_message_id is not implemented');
  return { chatId: chatIdOf(p), messageId: reqInt(p, 'message_id') };
}

// Commands are stored per (scope, language_code), exactly the key getMyCommands reads back.
export const commandKey = (p: Params): string =>
  `${JSON.stringify(p.scope ?? { type: 'default' })}|${optStr(p, 'language_code') ?? ''}`;

export const METHODS: Record<string, Handler> = {
  ...UPLOAD_METHODS,
  getMe: (s) =>
    ok({
      ...s.bot,
      can_join_groups: true,
      can_read_all_group_messages: false,
      supports_inline_queries: false,
      can_connect_to_business: false,
      has_main_web_app: false,
    }),

  getUpdates: async (s, p, signal) =>
    ok(
      await s.hub.getUpdates(optInt(p, 'offset'), optInt(p, 'limit'), optInt(p, 'timeout'), p.allowed_updates, signal),
    ),

  setWebhook: (s, p) => {
    const url = optStr(p, 'url') ?? '';
    if (url === '')
      return ok(
        true,
        s.hub.deleteWebhook(optBool(p, 'drop_pending_updates')) ? 'Webhook was deleted' : 'Webhook is already deleted',
      );
    // Real Telegram demands HTTPS on 443/80/88/8443; the fake posts plain HTTP to 127.0.0.1 instead.
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw badRequest('bad webhook: Failed to resolve host: Name or service not known');
    }
    if (!['http:', 'https:'].includes(parsed.protocol))
      throw badRequest('bad webhook: An HTTPS URL must be provided for webhook');
    const secret = optStr(p, 'secret_token');
    const allowed = Array.isArray(p.allowed_updates) ? p.allowed_updates.map(String) : undefined;
    s.hub.setWebhook(
      {
        url,
        max_connections: optInt(p, 'max_connections') ?? 40,
        ...(secret !== undefined ? { secret_token: secret } : {}),
        ...(allowed ? { allowed_updates: allowed } : {}),
      },
      optBool(p, 'drop_pending_updates'),
    );
    return ok(true, 'Webhook was set');
  },

  deleteWebhook: (s, p) =>
    ok(
      true,
      s.hub.deleteWebhook(optBool(p, 'drop_pending_updates')) ? 'Webhook was deleted' : 'Webhook is already deleted',
    ),

  getWebhookInfo: (s) => ok(s.hub.webhookInfo()),

  sendMessage: (s, p) => {
    const chatId = chatIdOf(p);
    s.store.chat(chatId);
    const content = readText(p);
    const markup = readMarkup(p);
    const replyParams = p.reply_parameters as
      | { message_id?: number; allow_sending_without_reply?: boolean }
      | undefined;
    const replyTo = optInt(p, 'reply_to_message_id') ?? replyParams?.message_id;
    const lenient = optBool(p, 'allow_sending_without_reply') || replyParams?.allow_sending_without_reply === true;
    const target = replyTo !== undefined && s.store.exists(chatId, replyTo) ? replyTo : undefined;
    if (replyTo !== undefined && target === undefined && !lenient) throw badRequest('message to be replied not found');
    const sent = s.store.addBotMessage(
      chatId,
      { ...content, ...(markup ? { reply_markup: markup } : {}), at: Date.now() },
      optInt(p, 'message_thread_id'),
    );
    if (target !== undefined) {
      const bot = s.store.findBot(chatId, target);
      const original = bot ? s.store.view(bot) : s.store.userMessage(chatId, target);
      if (original) sent.reply_to_message = original;
    }
    return ok(sent);
  },

  // Bot API 9.3: an ephemeral preview of a message being written, in a private chat only; the final text
  // is still sent with sendMessage. Wording of the errors is our best reading of the API.
  sendMessageDraft: (s, p) => {
    const chatId = chatIdOf(p);
    if (s.store.chat(chatId).type !== 'private') throw badRequest('TEXTDRAFT_PEER_INVALID');
    if ((optInt(p, 'draft_id') ?? 0) === 0) throw badRequest('TEXTDRAFT_ID_INVALID');
    readText(p);
    return ok(true);
  },

  editMessageText: (s, p) => {
    const { chatId, messageId } = requireChatMessage(p);
    const content = readText(p);
    const markup = readMarkup(p);
    return ok(
      s.store.edit(chatId, messageId, { ...content, ...(markup ? { reply_markup: markup } : {}), at: Date.now() }),
    );
  },

  editMessageReplyMarkup: (s, p) => {
    const { chatId, messageId } = requireChatMessage(p);
    const current = s.store.findBot(chatId, messageId);
    if (!current) throw badRequest('message to edit not found');
    const { reply_markup: _old, ...content } = versionOf(current);
    const markup = readMarkup(p); // omitted = remove the keyboard
    return ok(
      s.store.edit(chatId, messageId, { ...content, ...(markup ? { reply_markup: markup } : {}), at: Date.now() }),
    );
  },

  answerCallbackQuery: (s, p) => {
    const query = s.queries.get(optStr(p, 'callback_query_id') ?? '');
    if (!query || query.answered) throw badRequest(QUERY_GONE);
    if ((optStr(p, 'text') ?? '').length > 200) throw badRequest('MESSAGE_TOO_LONG');
    query.answered = true;
    return ok(true);
  },

  sendChatAction: (s, p) => {
    s.store.chat(chatIdOf(p));
    if (!CHAT_ACTIONS.has(optStr(p, 'action') ?? '')) throw badRequest('wrong parameter action in request');
    return ok(true);
  },

  setMyCommands: (s, p) => {
    if (!Array.isArray(p.commands)) throw badRequest("can't parse commands JSON object");
    if (p.commands.length > 100) throw badRequest('BOT_COMMANDS_TOO_MUCH');
    const commands = p.commands.map((raw: unknown): BotCommand => {
      const c = raw as Partial<BotCommand>;
      if (typeof c?.command !== 'string' || !/^[a-z0-9_]{1,32}$/.test(c.command))
        throw badRequest('BOT_COMMAND_INVALID');
      // Wording of the description error is our best reading of the API, not a captured response.
      if (typeof c.description !== 'string' || c.description.trim() === '' || c.description.length > 256) {
        throw badRequest('BOT_COMMAND_DESCRIPTION_INVALID');
      }
      return { command: c.command, description: c.description };
    });
    s.commands.set(commandKey(p), commands);
    return ok(true);
  },

  getMyCommands: (s, p) => ok(s.commands.get(commandKey(p)) ?? []),

  deleteMyCommands: (s, p) => {
    s.commands.delete(commandKey(p));
    return ok(true);
  },

  getFile: (s, p) => ok(s.files.getFile(optStr(p, 'file_id'))),

  deleteMessage: (s, p) => {
    const chatId = chatIdOf(p);
    s.store.delete(chatId, reqInt(p, 'message_id'));
    return ok(true);
  },
};

/** The canonical name for a requested method: the real API matches method names case-insensitively. */
export function lookupMethod(name: string): string | undefined {
  const lower = name.toLowerCase();
  return Object.keys(METHODS).find((m) => m.toLowerCase() === lower);
}

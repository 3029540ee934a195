// Wire shapes of the Telegram Bot API as the fake speaks them, and the error type that becomes the
// `{ok:false,error_code,description,parameters?}` envelope. Shapes are deliberately loose records:
// the fake builds them field by field the way the real API does, and tests read them as JSON.

export interface TgUser {
  id: number;
  is_bot: boolean;
  first_name: string;
  last_name?: string;
  username?: string;
  language_code?: string;
}

export type ChatType = 'private' | 'group' | 'supergroup' | 'channel';

export interface TgChat {
  id: number;
  type: ChatType;
  title?: string;
  first_name?: string;
  username?: string;
  is_forum?: true;
}

export interface TgEntity {
  type: string;
  offset: number; // UTF-16 code units, as the real API counts them
  length: number;
  url?: string;
  language?: string;
  custom_emoji_id?: string;
}

export interface TgButton {
  text: string;
  callback_data?: string;
  url?: string;
  [other: string]: unknown;
}

export interface TgInlineKeyboard {
  inline_keyboard: TgButton[][];
}

/** The fields a voice note and an audio file share. */
export interface TgAudioFields {
  file_id: string;
  file_unique_id: string;
  duration: number;
  mime_type: string;
  file_size: number;
}

export interface TgMessage {
  message_id: number;
  date: number;
  chat: TgChat;
  from?: TgUser;
  message_thread_id?: number;
  is_topic_message?: true;
  text?: string;
  entities?: TgEntity[];
  caption?: string;
  photo?: Array<{ file_id: string; file_unique_id: string; file_size: number; width: number; height: number }>;
  document?: { file_id: string; file_unique_id: string; file_name: string; mime_type: string; file_size: number };
  voice?: TgAudioFields;
  audio?: TgAudioFields & { file_name: string };
  reply_markup?: TgInlineKeyboard;
  reply_to_message?: TgMessage;
  edit_date?: number;
}

export interface TgCallbackQuery {
  id: string;
  from: TgUser;
  chat_instance: string;
  data: string;
  message: TgMessage;
}

/** An update as getUpdates/webhooks deliver it; exactly one payload field is set besides `update_id`. */
export interface TgUpdate {
  update_id: number;
  message?: TgMessage;
  edited_message?: TgMessage;
  callback_query?: TgCallbackQuery;
  [other: string]: unknown;
}

/** An error the real API would answer with; `code` becomes both HTTP status and `error_code`. */
export class TelegramApiError extends Error {
  constructor(
    readonly code: number,
    readonly description: string,
    readonly parameters?: Record<string, unknown>,
  ) {
    super(description);
  }
}

/** `400 Bad Request: <detail>` — the prefix every real 400 carries. */
export const badRequest = (detail: string): TelegramApiError => new TelegramApiError(400, `Bad Request: ${detail}`);

/** The update types delivered when `allowed_updates` is empty or never set (real default). */
export const DEFAULT_EXCLUDED_UPDATES = ['chat_member', 'message_reaction', 'message_reaction_count'];

/** Which payload an update carries, e.g. 'message' or 'callback_query'. */
export function updateType(update: TgUpdate): string {
  return Object.keys(update).find((k) => k !== 'update_id') ?? 'unknown';
}

/** Seconds since the epoch, the unit of every Telegram `date`. */
export const unixNow = (): number => Math.floor(Date.now() / 1000);

/** A structured copy, so callers of the store can never mutate the fake's state by accident. */
export const clone = <T>(value: T): T => structuredClone(value);

// Message content as the real API validates it: text with parse_mode or explicit entities (limits
// applied AFTER entity parsing, in UTF-16 code units as Telegram counts), and inline keyboards with
// callback_data measured in UTF-8 BYTES — the limit adapters most often get wrong with non-ASCII.
import { optStr, type Params } from './body.ts';
import { HtmlParseError, parseTelegramHtml } from './html.ts';
import { TelegramApiError, badRequest, type TgButton, type TgEntity, type TgInlineKeyboard } from './wire.ts';

export const MAX_TEXT = 4096;
export const MAX_CALLBACK_DATA_BYTES = 64;

/** Text as stored: what the user sees (`text`), what the bot sent (`raw_text`), and how. */
export interface TextContent {
  text: string;
  raw_text: string;
  parse_mode?: string;
  entities: TgEntity[];
}

/** Reads `text` + `parse_mode`/`entities` and applies the real limits and error strings. */
export function readText(p: Params): TextContent {
  const raw = optStr(p, 'text') ?? '';
  const mode = optStr(p, 'parse_mode');
  let parsed: { text: string; entities: TgEntity[] };
  if (mode === undefined || mode === '') {
    parsed = { text: raw, entities: readEntities(p.entities, raw) };
  } else if (mode.toLowerCase() === 'html') {
    try {
      parsed = parseTelegramHtml(raw);
    } catch (e) {
      if (e instanceof HtmlParseError) throw badRequest(`can't parse entities: ${e.message}`);
      throw e;
    }
  } else if (/^markdown(v2)?$/i.test(mode)) {
    // Real Telegram supports these; this fake does not, and says so instead of guessing.
    throw new TelegramApiError(501, `fake-telegram: parse_mode ${mode} is not implemented (use HTML)`);
  } else {
    throw badRequest('unsupported parse_mode');
  }
  if (parsed.text.trim() === '') throw badRequest('message text is empty');
  if (parsed.text.length > MAX_TEXT) throw badRequest('message is too long');
  return { text: parsed.text, raw_text: raw, ...(mode ? { parse_mode: mode } : {}), entities: parsed.entities };
}

function readEntities(value: unknown, text: string): TgEntity[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw badRequest("can't parse entities JSON object");
  return value.map((e: unknown) => {
    const ent = e as TgEntity;
    if (typeof ent?.type !== 'string' || !Number.isInteger(ent.offset) || !Number.isInteger(ent.length)) {
      throw badRequest("can't parse MessageEntity");
    }
    if (ent.offset < 0 || ent.length <= 0 || ent.offset + ent.length > text.length) {
      throw badRequest("can't parse entities: entity beginning/end is out of bounds"); // tdlib would trim; we refuse
    }
    return { ...ent };
  });
}

/**
 * Reads `reply_markup`. Only inline keyboards attach to a message (and come back on it); reply
 * keyboards are accepted but, as in Telegram, never appear in the returned Message.
 */
export function readMarkup(p: Params): TgInlineKeyboard | undefined {
  const m = p.reply_markup;
  if (m === undefined || m === null || m === '') return undefined;
  if (typeof m !== 'object' || Array.isArray(m)) throw badRequest("can't parse reply keyboard markup JSON object");
  const rows = (m as Record<string, unknown>).inline_keyboard;
  if (rows === undefined) return undefined;
  if (!Array.isArray(rows) || !rows.every(Array.isArray)) {
    throw badRequest('field "inline_keyboard" of the InlineKeyboardMarkup should be an Array of Arrays');
  }
  const keyboard = (rows as unknown[][]).map((row) => row.map(readButton)).filter((row) => row.length > 0);
  return keyboard.length > 0 ? { inline_keyboard: keyboard } : undefined; // empty markup = no keyboard
}

const ACTIONS = [
  'callback_data',
  'url',
  'login_url',
  'switch_inline_query',
  'switch_inline_query_current_chat',
  'switch_inline_query_chosen_chat',
  'callback_game',
  'pay',
  'web_app',
  'copy_text',
];

function readButton(b: unknown): TgButton {
  if (typeof b !== 'object' || b === null)
    throw badRequest("can't parse inline keyboard button: InlineKeyboardButton must be an Object");
  const button = b as TgButton;
  if (typeof button.text !== 'string')
    throw badRequest(`can't parse inline keyboard button: Field "text" must be of type String`);
  if (!ACTIONS.some((a) => button[a] !== undefined)) {
    throw badRequest("can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard");
  }
  if (button.callback_data !== undefined) {
    const bytes = typeof button.callback_data === 'string' ? Buffer.byteLength(button.callback_data, 'utf8') : 0;
    if (bytes < 1 || bytes > MAX_CALLBACK_DATA_BYTES) throw badRequest('BUTTON_DATA_INVALID');
  }
  if (button.url !== undefined && !isButtonUrl(button.url)) throw badRequest('BUTTON_URL_INVALID');
  return { ...button };
}

function isButtonUrl(url: unknown): boolean {
  if (typeof url !== 'string') return false;
  try {
    return ['http:', 'https:', 'tg:'].includes(new URL(url).protocol);
  } catch {
    return false;
  }
}

/** Order-insensitive JSON for comparing content ("message is not modified"). */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => a.localeCompare(b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

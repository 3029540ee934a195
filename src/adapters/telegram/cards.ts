// Cards as Telegram messages: an HTML body and an inline keyboard. Telegram carries a button's payload
// in `callback_data`, at most 64 BYTES of UTF-8; the core's ids (`apv:<12-char id>:<decision>`, 23
// bytes) fit, and anything longer is replaced by a short digest remembered here.
import { createHash } from 'node:crypto';
import type { InlineKeyboardMarkup } from 'grammy/types';
import { type Card, fitCard, visibleCard } from '../../core/surface/index.ts';
import { escapeTelegramHtml } from './format.ts';
import { TELEGRAM_TEXT_LIMIT, splitTelegramHtml, telegramVisibleText } from './html-split.ts';

/** Telegram's limit on `callback_data`, in UTF-8 bytes. */
export const CALLBACK_DATA_MAX_BYTES = 64;

/** A digest stands in for an over-long id: `~` + 43 base64url chars (44 bytes). */
const DIGEST_PREFIX = '~';

/**
 * Encodes button ids into callback_data and back. Ids of at most 64 bytes travel verbatim (and so
 * survive restarts); a longer one travels as a digest and is decoded from memory (up to `remember`).
 */
export class CallbackCodec {
  readonly #long = new Map<string, string>();
  readonly #remember: number;

  constructor(options: { remember?: number } = {}) {
    this.#remember = options.remember ?? 5000;
  }

  encode(id: string): string {
    if (Buffer.byteLength(id, 'utf8') <= CALLBACK_DATA_MAX_BYTES && !id.startsWith(DIGEST_PREFIX)) return id;
    const data = DIGEST_PREFIX + createHash('sha256').update(id).digest('base64url');
    this.#long.delete(data);
    this.#long.set(data, id);
    while (this.#long.size > this.#remember) this.#long.delete(this.#long.keys().next().value!);
    return data;
  }

  /** The button id; an unknown digest (forgotten, or from before a restart) comes back unchanged. */
  decode(data: string): string {
    return this.#long.get(data) ?? data;
  }
}

/** A card as Telegram sends it. `keyboard` is absent once the card has no buttons (settled). */
export interface RenderedCard {
  html: string;
  keyboard?: InlineKeyboardMarkup;
}

/**
 * Renders a card: a bold title, `label: value` lines (values are plain text, escaped), an italic
 * footer, and one row of buttons. A card is one message: when its arguments do not fit, the core's
 * fitCard shows what does with a count of the rest and trades Approve for Show all (a private chat).
 * @example renderCard({ title: 'Approve x?', fields: [], buttons: [] }, codec).html // '<b>Approve x?</b>'
 */
export function renderCard(shown: Card, codec: CallbackCodec): RenderedCard {
  const fits = (c: Card) => telegramVisibleText(htmlOf(c)).length <= TELEGRAM_TEXT_LIMIT;
  const card = fitCard(visibleCard(shown), { fits, canShowAll: true });
  // A safety net for cards with no `whole` field (a question): what fits of them.
  const html = splitTelegramHtml(htmlOf(card))[0] ?? '';
  if (card.buttons.length === 0) return { html };
  const row = card.buttons.map((button) => ({ text: button.label, callback_data: codec.encode(button.id) }));
  return { html, keyboard: { inline_keyboard: [row] } };
}

function htmlOf(card: Card): string {
  const lines = [`<b>${escapeTelegramHtml(card.title)}</b>`];
  for (const field of card.fields)
    lines.push(`<b>${escapeTelegramHtml(field.label)}:</b> ${escapeTelegramHtml(field.value)}`);
  if (card.footer) lines.push('', `<i>${escapeTelegramHtml(card.footer)}</i>`);
  return lines.join('\n');
}

/** The label of the button a tap pressed, read from the tapped message itself. */
export function tappedLabel(markup: InlineKeyboardMarkup | undefined, data: string): string | undefined {
  for (const row of markup?.inline_keyboard ?? []) {
    for (const button of row) if ('callback_data' in button && button.callback_data === data) return button.text;
  }
  return undefined;
}

/** Same text and same buttons: the edit would change nothing. */
export function sameCard(a: RenderedCard | undefined, b: RenderedCard): boolean {
  return (
    a !== undefined && a.html === b.html && JSON.stringify(a.keyboard ?? null) === JSON.stringify(b.keyboard ?? null)
  );
}

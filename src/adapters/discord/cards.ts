// Cards as Discord messages: the fields in the message content (not an embed: people who turned embeds
// off in their settings would see an empty card), and one row of buttons whose custom_id is the core's
// button id verbatim (`apv:<gate>:<decision>`, far under Discord's 100 characters), so a tap still means
// the same after a restart. Values are plain text: Markdown characters in them are escaped.
import {
  ButtonStyle,
  ComponentType,
  type APIActionRowComponent,
  type APIButtonComponentWithCustomId,
} from 'discord.js';
import { type Card, type CardButton, visibleCard } from '../../core/surface/index.ts';
import { DISCORD_TEXT_LIMIT, splitForDiscord } from './format.ts';

/** Discord's limits on a button. */
export const CUSTOM_ID_MAX = 100;
export const LABEL_MAX = 80;
/** Buttons per row, rows per message. */
const ROW_MAX = 5;

const STYLE: Record<CardButton['style'], APIButtonComponentWithCustomId['style']> = {
  primary: ButtonStyle.Primary,
  secondary: ButtonStyle.Secondary,
  danger: ButtonStyle.Danger,
};

/** A card as Discord sends it; `components` is `[]` once the card has no buttons (settled). */
export interface RenderedCard {
  content: string;
  components: Array<APIActionRowComponent<APIButtonComponentWithCustomId>>;
}

/**
 * Escapes Discord Markdown in plain text: `\ * _ ~ ` | [` anywhere, and `> # -` at a line start, so
 * `mcp__git__push` shows as written instead of underlined.
 * @example escapeDiscord('a_b_c') // 'a\\_b\\_c'
 */
export function escapeDiscord(text: string): string {
  return text.replace(/[\\*_~`|[]/g, '\\$&').replace(/^([>#-])/gm, '\\$1');
}

const cut = (text: string, max: number): string =>
  [...text].length <= max ? text : `${[...text].slice(0, Math.max(0, max - 1)).join('')}…`;

/** A value on one line is escaped; one of several lines (arguments) becomes a code block. */
function value(text: string, max: number): string {
  if (!text.includes('\n')) return escapeDiscord(cut(text, max));
  return `\n\`\`\`\n${cut(text, max).replace(/```/g, '`\u200b`\u200b`')}\n\`\`\``;
}

/**
 * Renders a card: a bold title, `**label:** value` lines, an italic footer, and rows of buttons. The
 * text fits one message: when the fields would not, each value is shortened alike.
 * @example renderCard({ title: 'Approve x?', fields: [], buttons: [] }).content // '**Approve x?**'
 */
export function renderCard(shown: Card): RenderedCard {
  const card = visibleCard(shown);
  const head = `**${escapeDiscord(cut(card.title, 200))}**`;
  const foot = card.footer ? `*${escapeDiscord(cut(card.footer, 400))}*` : undefined;
  const fixed = head.length + (foot ? foot.length + 2 : 0) + card.fields.reduce((n, f) => n + f.label.length + 16, 0);
  const share = Math.max(40, Math.floor((DISCORD_TEXT_LIMIT - fixed) / Math.max(1, card.fields.length)));
  const lines = [head, ...card.fields.map((f) => `**${escapeDiscord(f.label)}:** ${value(f.value, share)}`)];
  if (foot) lines.push('', foot);
  // A safety net only: the shares above keep the text within one message.
  const content = splitForDiscord(lines.join('\n'))[0] ?? head;
  return { content, components: buttonRows(card.buttons) };
}

function buttonRows(buttons: CardButton[]): RenderedCard['components'] {
  const rows: RenderedCard['components'] = [];
  for (let i = 0; i < buttons.length && rows.length < ROW_MAX; i += ROW_MAX) {
    rows.push({
      type: ComponentType.ActionRow,
      components: buttons.slice(i, i + ROW_MAX).map((b) => {
        if (b.id.length > CUSTOM_ID_MAX)
          throw new Error(`button id "${b.id.slice(0, 40)}…" is longer than Discord's ${CUSTOM_ID_MAX} characters`);
        return { type: ComponentType.Button, custom_id: b.id, label: cut(b.label, LABEL_MAX), style: STYLE[b.style] };
      }),
    });
  }
  return rows;
}

/** Same text and same buttons: the edit would change nothing. */
export function sameCard(a: RenderedCard | undefined, b: RenderedCard): boolean {
  return a !== undefined && a.content === b.content && JSON.stringify(a.components) === JSON.stringify(b.components);
}

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
import { type Card, type CardButton, fitCard, reasonButtonId, visibleCard } from '../../core/surface/index.ts';
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

/**
 * A value on one line is escaped; one of several lines (arguments) becomes a code block. A `whole` value
 * comes with no limit: fitCard has already made it fit, or said how much it left out.
 */
function value(text: string, max: number): string {
  if (!text.includes('\n')) return escapeDiscord(cut(text, max));
  return `\n\`\`\`\n${cut(text, max).replace(/```/g, '`\u200b`\u200b`')}\n\`\`\``;
}

/**
 * Renders a card: a bold title, `**label:** value` lines, an italic footer, and rows of buttons. The
 * text fits one message: the other fields share what it leaves, and the arguments are fitted by fitCard.
 * @example renderCard({ title: 'Approve x?', fields: [], buttons: [] }).content // '**Approve x?**'
 */
export function renderCard(shown: Card): RenderedCard {
  // Arguments past the message's 2,000 characters: what fits, a count of the rest, Show all for Approve.
  const card = fitCard(visibleCard(shown), {
    fits: (c) => contentOf(c).length <= DISCORD_TEXT_LIMIT,
    canShowAll: true,
  });
  // A safety net only: the shares below and fitCard keep the text within one message.
  const content = splitForDiscord(contentOf(card))[0] ?? '';
  return { content, components: buttonRows(card.buttons) };
}

/** The message text; a value that is not `whole` gets an equal share of what the message leaves. */
function contentOf(card: Card): string {
  const head = `**${escapeDiscord(cut(card.title, 200))}**`;
  const foot = card.footer ? `*${escapeDiscord(cut(card.footer, 400))}*` : undefined;
  const fixed = head.length + (foot ? foot.length + 2 : 0) + card.fields.reduce((n, f) => n + f.label.length + 16, 0);
  const share = Math.max(40, Math.floor((DISCORD_TEXT_LIMIT - fixed) / Math.max(1, card.fields.length)));
  const shown = (f: Card['fields'][number]) => value(f.value, f.whole ? Number.POSITIVE_INFINITY : share);
  const lines = [head, ...card.fields.map((f) => `**${escapeDiscord(f.label)}:** ${shown(f)}`)];
  if (foot) lines.push('', foot);
  return lines.join('\n');
}

function buttonRows(buttons: CardButton[]): RenderedCard['components'] {
  const rows: RenderedCard['components'] = [];
  for (let i = 0; i < buttons.length && rows.length < ROW_MAX; i += ROW_MAX) {
    rows.push({
      type: ComponentType.ActionRow,
      components: buttons.slice(i, i + ROW_MAX).map((b) => {
        // A button that asks why first answers its tap with a modal (reasons.ts): its id tells the tap so.
        const id = b.asksReason ? reasonButtonId(b.id) : b.id;
        if (id.length > CUSTOM_ID_MAX)
          throw new Error(`button id "${id.slice(0, 40)}…" is longer than Discord's ${CUSTOM_ID_MAX} characters`);
        return { type: ComponentType.Button, custom_id: id, label: cut(b.label, LABEL_MAX), style: STYLE[b.style] };
      }),
    });
  }
  return rows;
}

/** Same text and same buttons: the edit would change nothing. */
export function sameCard(a: RenderedCard | undefined, b: RenderedCard): boolean {
  return a !== undefined && a.content === b.content && JSON.stringify(a.components) === JSON.stringify(b.components);
}

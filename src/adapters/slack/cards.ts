// Cards as Block Kit: a header with the title, sections of `label / value` fields, one actions block
// whose buttons carry the core's ids as `action_id` (Slack hands it back on a click), and the footer in a
// context block. Every piece is kept within Slack's per-element limits, so a card is never refused.
import {
  type Card,
  type CardButton,
  type CardField,
  fitCard,
  reasonButtonId,
  visibleCard,
} from '../../core/surface/index.ts';
import { escapeMrkdwn } from './format.ts';

type Text = { type: 'plain_text'; text: string; emoji?: boolean } | { type: 'mrkdwn'; text: string };

/** The Block Kit blocks Kazma sends. */
export type SlackBlock =
  | { type: 'header'; text: Text }
  | { type: 'section'; text?: Text; fields?: Text[] }
  | { type: 'actions'; block_id: string; elements: SlackButton[] }
  | { type: 'context'; elements: Text[] };

export interface SlackButton {
  type: 'button';
  action_id: string;
  value: string;
  text: Text;
  style?: 'primary' | 'danger';
}

/** A card as chat.postMessage / chat.update take it: `text` is the notification fallback. */
export interface RenderedCard {
  text: string;
  blocks: SlackBlock[];
}

/** Slack's limits on the parts of a card (characters). */
export const CARD_LIMITS = {
  header: 150,
  field: 2000,
  fieldsPerSection: 10,
  button: 75,
  actionId: 255,
  context: 3000,
} as const;

/** `s` cut to `max` code points, with an ellipsis when cut. */
export function fit(s: string, max: number): string {
  const points = [...s];
  return points.length <= max ? s : `${points.slice(0, max - 1).join('')}…`;
}

/** `raw` escaped for mrkdwn and cut (before escaping, so no `&amp;` is split) to fit `max` characters. */
function escapedWithin(raw: string, max: number): string {
  let text = escapeMrkdwn(raw);
  for (let keep = [...raw].length; [...text].length > max && keep > 1; ) {
    // Shrink in proportion to how much escaping grew the text, by at least one character.
    keep = Math.max(1, Math.min(keep - 1, Math.floor((keep * max) / [...text].length)));
    text = escapeMrkdwn(fit(raw, keep));
  }
  return text;
}

/**
 * A field's value: one line as text, several lines (JSON arguments) as a code block shown verbatim. A
 * `whole` field is never cut here: fitCard has already made it fit, or said how much it left out.
 */
function fieldText({ label, value, whole }: CardField): Text {
  const head = `*${escapeMrkdwn(fit(label, 100))}*\n`;
  const room = whole ? Number.POSITIVE_INFINITY : CARD_LIMITS.field - [...head].length;
  const within = (raw: string, max: number) => (whole ? escapeMrkdwn(raw) : escapedWithin(raw, max));
  if (!value.includes('\n')) return { type: 'mrkdwn', text: head + within(value, room) };
  // Slack ends a code block at the first ``` inside it: a zero-width space keeps those backticks literal.
  const code = value.replace(/```/g, '`\u200b`\u200b`');
  return { type: 'mrkdwn', text: `${head}\`\`\`${within(code, room - 6)}\`\`\`` };
}

const fieldsFit = (card: Card): boolean => card.fields.every((f) => [...fieldText(f).text].length <= CARD_LIMITS.field);

function button(b: CardButton): SlackButton {
  // A button that asks why first opens a modal when clicked (reasons.ts): its id tells the click so.
  const id = b.asksReason ? reasonButtonId(b.id) : b.id;
  if (id.length > CARD_LIMITS.actionId)
    throw new RangeError(
      `card button id "${b.id.slice(0, 40)}…" exceeds Slack's ${CARD_LIMITS.actionId}-character action_id`,
    );
  const style = b.style === 'secondary' ? {} : { style: b.style };
  return {
    type: 'button',
    action_id: id,
    value: id,
    text: { type: 'plain_text', text: fit(b.label, CARD_LIMITS.button), emoji: true },
    ...style,
  };
}

/**
 * Renders a card; a settled card (no buttons) has no actions block, so chat.update removes them.
 * @example renderCard({ title: 'Approve x?', fields: [], buttons: [] }).blocks // [{ type: 'header', … }]
 */
export function renderCard(shown: Card): RenderedCard {
  // Arguments past a field's 2,000 characters: what fits, a count of the rest, Show all for Approve.
  const card = fitCard(visibleCard(shown), { fits: fieldsFit, canShowAll: true });
  const blocks: SlackBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: fit(card.title, CARD_LIMITS.header), emoji: true } },
  ];
  const fields = card.fields.map(fieldText);
  for (let i = 0; i < fields.length; i += CARD_LIMITS.fieldsPerSection)
    blocks.push({ type: 'section', fields: fields.slice(i, i + CARD_LIMITS.fieldsPerSection) });
  if (card.buttons.length > 0)
    blocks.push({ type: 'actions', block_id: 'kazma_card', elements: card.buttons.map(button) });
  if (card.footer)
    blocks.push({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: escapedWithin(card.footer, CARD_LIMITS.context) }],
    });
  const text = escapeMrkdwn(card.footer ? `${card.title} — ${card.footer}` : card.title);
  return { text, blocks };
}

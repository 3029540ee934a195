// Plain, greppable text for the terminal: every reply line starts with `kazma> `, every line of an approval
// card with `[approval] ` and of any other card (a task's status, an incident) with `[card] `, so scripts
// can pick them out of the output.
import { DECISIONS } from '../../core/db/index.ts';
import { type Card, type CardButton, visibleCard } from '../../core/surface/index.ts';

export const REPLY_PREFIX = 'kazma> ';
export const CARD_PREFIX = '[approval] ';
export const OTHER_CARD_PREFIX = '[card] ';

/** A reply as lines, each prefixed. */
export function renderReply(text: string): string {
  return text
    .split('\n')
    .map((line) => `${REPLY_PREFIX}${line}`)
    .join('\n');
}

const DECISION_SUFFIX = new RegExp(`:(${DECISIONS.join('|')})$`);

/** `[approval] ` for a card that asks for an approval decision (its buttons are decisions), else `[card] `. */
export function cardPrefix(card: Card): string {
  return card.buttons.some((button) => DECISION_SUFFIX.test(button.id)) ? CARD_PREFIX : OTHER_CARD_PREFIX;
}

/** Approval buttons are named by their decision in the terminal: `[o]nce / [a]lways / [d]eny`. */
function wordOf(button: CardButton): string {
  return DECISION_SUFFIX.exec(button.id)?.[1] ?? button.label;
}

/** The one-letter answer for each button: the first letter of its word, unless taken (then its number). */
export function shortcuts(buttons: CardButton[]): Array<{ key: string; button: CardButton }> {
  const used = new Set<string>();
  return buttons.map((button, i) => {
    const first = wordOf(button).trim().charAt(0).toLowerCase();
    const key = first && !used.has(first) ? first : String(i + 1);
    used.add(key);
    return { key, button };
  });
}

/** A card as a block; with buttons it ends in the prompt line, e.g. `[o]nce / [a]lways / [d]eny?`. */
export function renderCard(shown: Card): string {
  const card = visibleCard(shown);
  const lines = [card.title];
  for (const field of card.fields) {
    const [first = '', ...more] = field.value.split('\n');
    lines.push(`  ${field.label}: ${first}`, ...more.map((line) => `    ${line}`));
  }
  if (card.footer) lines.push(card.footer);
  if (card.buttons.length > 0) {
    lines.push(
      `${shortcuts(card.buttons)
        .map(({ key, button }) => label(key, wordOf(button)))
        .join(' / ')}?`,
    );
  }
  const prefix = cardPrefix(shown);
  return lines.map((line) => `${prefix}${line}`).join('\n');
}

function label(key: string, text: string): string {
  const lower = text.toLowerCase();
  return lower.startsWith(key) ? `[${key}]${lower.slice(1)}` : `[${key}] ${lower}`;
}

/** The button a typed answer names (`o`, or the label's word such as `once`), if any. */
export function buttonFor(card: Card, answer: string): CardButton | undefined {
  const typed = answer.trim().toLowerCase();
  return shortcuts(card.buttons).find(
    ({ key, button }) =>
      typed === key || typed === wordOf(button).toLowerCase() || typed === button.label.toLowerCase(),
  )?.button;
}

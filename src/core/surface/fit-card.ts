// What the approver sees is what runs. A card's `whole` field (a tool's arguments) is never cut by an
// adapter's own length guard: the adapter says whether a card fits its platform, and this one function
// decides what part of the field is shown and says how much is hidden. A cut card can no longer be
// approved from the card itself (its `needsWhole` buttons leave); it offers Show all, which sends the
// field in full privately, where the platform can do that — and where it cannot, only Deny is left.
import { clipText } from './text-split.ts';
import type { Card } from './types.ts';

/** Options for {@link fitCard}. */
export interface FitCardOptions {
  /** True when `card`, as this platform renders it, is within the platform's limits. */
  fits(card: Card): boolean;
  /** The platform can send a long text to one person privately (Surface.replyPrivately with `whole`). */
  canShowAll: boolean;
}

const count = (n: number): string => n.toLocaleString('en-US');

const TAIL = {
  showAll: ': Show all sends them to you',
  noApproval: ' here, so this card cannot be approved',
  settled: '',
} as const;

/**
 * The line that replaces what a card leaves out, e.g. `… 1,234 more characters not shown`, and why
 * Approve is gone: Show all is offered, or (`noApproval`) the platform cannot show them at all.
 * @example hiddenNote(1234, 'showAll') // '… 1,234 more characters not shown: Show all sends them to you'
 */
export function hiddenNote(hidden: number, why: keyof typeof TAIL): string {
  return `… ${count(hidden)} more ${hidden === 1 ? 'character' : 'characters'} not shown${TAIL[why]}`;
}

/**
 * `card` as a platform can show it: unchanged when it fits; otherwise each `whole` field, longest first,
 * cut at a grapheme boundary to the most that fits, followed by {@link hiddenNote}, with the
 * `needsWhole` buttons taken off and `showAll` put first (when the platform can show all).
 * @example fitCard(card, { fits: (c) => render(c).length <= 2000, canShowAll: true })
 */
export function fitCard(card: Card, options: FitCardOptions): Card {
  if (options.fits(card)) return card;
  const order = card.fields
    .map((field, index) => ({ field, index }))
    .filter(({ field }) => field.whole)
    .sort((a, b) => b.field.value.length - a.field.value.length);
  if (order.length === 0) return card;
  const show = options.canShowAll && card.showAll ? [card.showAll] : [];
  const why = show.length > 0 ? 'showAll' : card.buttons.some((b) => b.needsWhole) ? 'noApproval' : 'settled';
  let fitted: Card = { ...card, buttons: [...show, ...card.buttons.filter((b) => !b.needsWhole)] };
  for (const { field, index } of order) {
    const full = field.value;
    const cut = (keep: number): Card => {
      const shown = clipText(full, keep);
      const hidden = [...full].length - [...shown].length;
      const value = `${shown}${shown === '' ? '' : '\n'}${hiddenNote(hidden, why)}`;
      return { ...fitted, fields: fitted.fields.map((f, i) => (i === index ? { ...f, value } : f)) };
    };
    // The most characters that still fit: a binary search over how many are kept.
    let [low, high] = [0, Math.max(0, full.length - 1)];
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (options.fits(cut(mid))) low = mid;
      else high = mid - 1;
    }
    fitted = cut(low);
    if (options.fits(fitted)) break;
  }
  return fitted;
}

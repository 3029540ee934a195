// What a person is shown of text Kazma did not write (an MCP server's tool name, a model's arguments, a
// display name) must be what is there. Control characters end lines or move the cursor, bidi overrides
// (U+202E) reverse what follows, zero-width and other format characters hide text between letters: a
// tool name `x\n\n…` once ended a Telegram card before its arguments. So every such character is shown
// as an escape (`\n`, `\u202E`), the one way every adapter and the console render it.
import type { Card } from './types.ts';

// C0 and C1 controls and DEL; line and paragraph separators; every format character (\p{Cf}: bidi
// marks and overrides, zero-width space/joiners, word joiner, BOM, soft hyphen, tag characters).
const HIDDEN = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;
const HIDDEN_BUT_NEWLINE = /[\p{Cf}\u2028\u2029]|(?![\n])\p{Cc}/gu;
const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
// A joiner between two pictographs builds one emoji (👨‍👩‍👧): that is not hiding anything.
const EMOJI_BEFORE = /\p{Extended_Pictographic}\uFE0F?$/u;
const EMOJI_AFTER = /^\p{Extended_Pictographic}/u;

/** `\u202E`, `\u{E0041}`: the character's code point as an escape a person can read. */
export function escapeOf(char: string): string {
  const short = SHORT[char];
  if (short) return short;
  const code = char.codePointAt(0) ?? 0;
  const hex = code.toString(16).toUpperCase();
  return code > 0xffff ? `\\u{${hex}}` : `\\u${hex.padStart(4, '0')}`;
}

function escapeHidden(text: string, pattern: RegExp): string {
  return text.replace(pattern, (char, offset: number, whole: string) =>
    char === '\u200d' && EMOJI_BEFORE.test(whole.slice(0, offset)) && EMOJI_AFTER.test(whole.slice(offset + 1))
      ? char
      : escapeOf(char),
  );
}

/**
 * A name or a one-line value as it must be shown: every control, format and separator character,
 * newlines included, becomes a visible escape, so the text stays on its line and hides nothing.
 * Idempotent (its output has none of those characters left).
 * @example visibleLine('git\n\npush\u202Egnp.exe') // 'git\\n\\npush\\u202Egnp.exe'
 */
export function visibleLine(text: string): string {
  return escapeHidden(text, HIDDEN);
}

/**
 * Several lines as they must be shown: as {@link visibleLine}, but a newline stays a line break (the
 * lines of pretty JSON, where a newline inside a string is already written `\n`).
 */
export function visibleText(text: string): string {
  return escapeHidden(text, HIDDEN_BUT_NEWLINE);
}

/**
 * `JSON.stringify(value, null, indent)` with every hidden character written as a JSON escape: the same
 * JSON value when parsed, but a person reading the raw text (an HTTP answer in a terminal) sees
 * `\u202e` where a reversal would have been.
 */
export function visibleJson(value: unknown, indent?: number): string {
  const json = JSON.stringify(value, null, indent) ?? 'null';
  // Newlines here are the layout's: JSON.stringify has already escaped every one inside a string.
  return json.replace(HIDDEN_BUT_NEWLINE, (char) =>
    [...char]
      .flatMap((c) => (c.length === 2 ? [c.charCodeAt(0), c.charCodeAt(1)] : [c.charCodeAt(0)]))
      .map((unit) => `\\u${unit.toString(16).padStart(4, '0')}`)
      .join(''),
  );
}

/**
 * A card as every adapter must render it: its title, labels, footer and button labels on one line each,
 * its values with their line breaks but nothing hidden. Adapters call it first, then escape for their
 * markup; the core's cards are already visible, so this is the guard for every other card.
 */
export function visibleCard(card: Card): Card {
  const button = <B extends { label: string }>(b: B): B => ({ ...b, label: visibleLine(b.label) });
  return {
    ...card,
    title: visibleLine(card.title),
    fields: card.fields.map((f) => ({ ...f, label: visibleLine(f.label), value: visibleText(f.value) })),
    buttons: card.buttons.map(button),
    ...(card.footer !== undefined && { footer: visibleLine(card.footer) }),
    ...(card.showAll && { showAll: button(card.showAll) }),
  };
}

// The one way `kazma chat` writes to the terminal. A model's reply (or a tool's name, an MCP server's
// text) once carried escape sequences: a fake card drawn over the screen and a conceal code (ESC[8m)
// hid the real `rm -r src` card, and typing `o` approved it. So every text goes through terminalSafe —
// ESC (and with it every CSI, OSC — OSC 52 clipboard writes included — and DCS), C1 controls (the
// 8-bit CSI U+009B among them), BEL, backspace and carriage return are shown as visible escapes, while
// Arabic, emoji and newlines are kept — and Kazma's own few control codes are named, not passed as text.
import type { Writable } from 'node:stream';
import { visibleText } from '../../core/surface/index.ts';

/** The control codes Kazma itself sends: erase the line (after the "thinking…" indicator). */
export const TERMINAL_CONTROLS = { clearLine: '\r\x1b[2K' } as const;

/**
 * `text` as a terminal may show it: every control and format character except the newline written as
 * a visible escape (`\u001B[8m`, `\r`), so nothing in it moves the cursor, hides, recolours, retitles
 * or reaches the clipboard.
 * @example terminalSafe('ok\x1b[8mhidden') // 'ok\\u001B[8mhidden'
 */
export function terminalSafe(text: string): string {
  return visibleText(text);
}

/** Writes to the terminal: text always through {@link terminalSafe}, controls only by name. */
export class Terminal {
  readonly #out: Writable;

  constructor(out: Writable) {
    this.#out = out;
  }

  /** Any text, from anywhere. */
  text(text: string): void {
    this.#out.write(terminalSafe(text));
  }

  /** One of Kazma's own control codes. */
  control(name: keyof typeof TERMINAL_CONTROLS): void {
    this.#out.write(TERMINAL_CONTROLS[name]);
  }
}

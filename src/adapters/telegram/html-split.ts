// Splitting Telegram HTML to the message limit. Telegram measures the limit on the text *after* it
// parses the HTML (tags and entity spelling cost nothing), so cuts are chosen on that visible text
// and mapped back; the open tags at a cut are closed at the chunk's end and reopened at the next
// chunk's start, so each chunk parses on its own and keeps its formatting.
import { TextCutter } from '../../core/surface/index.ts';

/**
 * Telegram's message text limit: "1-4096 characters after entities parsing". tdlib (behind the Bot API)
 * counts Unicode code points; we count UTF-16 units, never fewer, so a chunk that fits here fits there.
 */
export const TELEGRAM_TEXT_LIMIT = 4096;

interface Tag {
  name: string;
  /** The opening tag as written, reused to reopen it. */
  raw: string;
  close: boolean;
  /** Where the tag starts and ends in the HTML. */
  start: number;
  end: number;
}

interface Parsed {
  /** The visible text, as Telegram will count it. */
  text: string;
  /** For each visible UTF-16 unit (and one past the end), where it starts in the HTML. */
  at: number[];
  tags: Tag[];
}

const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"' };

/** Reads HTML the way Telegram's parser does: only &lt; &gt; &amp; &quot; and numeric references decode. */
function parse(html: string): Parsed {
  const at: number[] = [];
  const tags: Tag[] = [];
  let text = '';
  const emit = (s: string, rawStart: number): void => {
    text += s;
    for (let k = 0; k < s.length; k++) at.push(rawStart);
  };
  for (let i = 0; i < html.length; ) {
    const c = html[i]!;
    if (c === '<' && /[A-Za-z/]/.test(html[i + 1] ?? '')) {
      let j = i + 1;
      let quote = '';
      for (; j < html.length && (quote || html[j] !== '>'); j++) {
        if (quote ? html[j] === quote : html[j] === '"' || html[j] === "'") quote = quote ? '' : html[j]!;
      }
      const raw = html.slice(i, j + 1);
      const close = raw[1] === '/';
      const name = (/^<\/?([A-Za-z][\w-]*)/.exec(raw)?.[1] ?? '').toLowerCase();
      tags.push({ name, raw, close, start: i, end: j + 1 });
      i = j + 1;
      continue;
    }
    if (c === '&') {
      const m = /^&(?:#(\d{1,7})(?!\d)|#x([\da-fA-F]{1,6})(?![\da-fA-F])|(lt|gt|amp|quot)(?![A-Za-z]));?/.exec(
        html.slice(i, i + 12),
      );
      const code = m?.[1] ? Number(m[1]) : m?.[2] ? parseInt(m[2], 16) : undefined;
      const decoded = m?.[3] ? NAMED[m[3]] : code && code < 0x110000 ? String.fromCodePoint(code) : undefined;
      if (m && decoded !== undefined) {
        emit(decoded, i);
        i += m[0].length;
        continue;
      }
    }
    emit(c, i);
    i++;
  }
  at.push(html.length);
  return { text, at, tags };
}

/**
 * The text Telegram shows (and counts) for `html`: tags removed, entities decoded.
 * @example telegramVisibleText('<b>a &amp; b</b>') // 'a & b'
 */
export function telegramVisibleText(html: string): string {
  return parse(html).text;
}

/**
 * Splits Telegram HTML into chunks whose visible text is at most `limit` UTF-16 units (default
 * {@link TELEGRAM_TEXT_LIMIT}). Cuts prefer a blank line, then a line break, then a space, and never
 * fall inside a tag, an entity, a surrogate pair or a grapheme cluster (a letter keeps its marks).
 * Tags open at a cut are closed at the chunk's end and reopened, as written, at the next chunk's start;
 * the whitespace at a cut is dropped. Returns `[html]` when it fits, `[]` for ''.
 * @example splitTelegramHtml('<b>one\n\ntwo</b>', 4) // ['<b>one</b>', '<b>two</b>']
 */
export function splitTelegramHtml(html: string, limit: number = TELEGRAM_TEXT_LIMIT): string[] {
  if (html === '') return [];
  const { text, at, tags } = parse(html);
  if (text.length <= limit) return [html];
  const cutter = new TextCutter(text);
  const stack: Tag[] = [];
  let applied = 0;
  // Replays tags up to raw offset `upTo` onto the stack; cuts only move forward, so this is one pass.
  const advance = (upTo: number): void => {
    for (; applied < tags.length && tags[applied]!.end <= upTo; applied++) {
      const tag = tags[applied]!;
      if (!tag.close) stack.push(tag);
      else {
        const k = stack.map((t) => t.name).lastIndexOf(tag.name);
        if (k !== -1) stack.length = k;
      }
    }
  };
  const chunks: string[] = [];
  let rawStart = 0;
  let prefix = '';
  for (let pos = 0; pos < text.length; ) {
    const cut = cutter.cut(pos, limit);
    const rawEnd = cut.kind === 'end' ? html.length : at[cut.end]!;
    advance(rawEnd);
    const suffix = [...stack]
      .reverse()
      .map((t) => `</${t.name}>`)
      .join('');
    chunks.push(dropEmptyPairs(prefix + html.slice(rawStart, rawEnd) + suffix));
    rawStart = at[cut.next]!;
    advance(rawStart);
    prefix = stack.map((t) => t.raw).join('');
    pos = cut.next;
  }
  return chunks;
}

/** Removes `<b></b>`-style pairs a cut can leave behind (a tag opened just before the cut). */
function dropEmptyPairs(html: string): string {
  const empty = /<([A-Za-z][\w-]*)(?:\s[^>]*)?><\/\1>/g;
  let out = html;
  for (let prev = ''; prev !== out; ) {
    prev = out;
    out = out.replace(empty, '');
  }
  return out;
}

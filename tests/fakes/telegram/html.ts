// parse_mode 'HTML' as the real server parses it, modelled on tdlib's do_parse_html (the code behind
// the Bot API), so the fake accepts and rejects the same inputs with the same messages. Only the
// tags Telegram supports; only &lt; &gt; &amp; &quot; and numeric references are decoded, and an
// unknown `&name;` stays literal text — real behaviour that surprises people who escape with &apos;.
import type { TgEntity } from './wire.ts';

export interface ParsedText {
  text: string;
  entities: TgEntity[];
}

/** Thrown for malformed HTML; `message` is tdlib's wording (the API prefixes "can't parse entities: "). */
export class HtmlParseError extends Error {}

const SIMPLE: Record<string, string> = {
  b: 'bold',
  strong: 'bold',
  i: 'italic',
  em: 'italic',
  u: 'underline',
  ins: 'underline',
  s: 'strikethrough',
  strike: 'strikethrough',
  del: 'strikethrough',
  'tg-spoiler': 'spoiler',
};
const SUPPORTED = new Set([...Object.keys(SIMPLE), 'a', 'span', 'tg-emoji', 'pre', 'code', 'blockquote']);

const isSpace = (ch: string | undefined): boolean => ch !== undefined && /[ \t\r\n\f\v]/.test(ch);
const isAlnum = (ch: string | undefined): boolean => ch !== undefined && /[A-Za-z0-9]/.test(ch);

/** Decodes one character reference at `pos`; returns null when tdlib would keep the '&' literally. */
function decodeEntity(s: string, pos: number): { ch: string; next: number } | null {
  let end = pos + 1;
  let code = 0;
  if (s[end] === '#') {
    end++;
    const hex = s[end] === 'x';
    if (hex) end++;
    const digit = hex ? /[0-9a-fA-F]/ : /[0-9]/;
    while (end < s.length && digit.test(s[end]!)) {
      code = code * (hex ? 16 : 10) + parseInt(s[end++]!, 16);
      if (code >= 0x10ffff) return null;
    }
    if (code === 0 || end - pos >= 10) return null;
  } else {
    while (end < s.length && /[A-Za-z]/.test(s[end]!)) end++;
    const named: Record<string, number> = { lt: 60, gt: 62, amp: 38, quot: 34 };
    const value = named[s.slice(pos + 1, end)];
    if (value === undefined) return null;
    code = value;
  }
  return { ch: String.fromCodePoint(code), next: s[end] === ';' ? end + 1 : end };
}

interface Open {
  tag: string;
  arg: string;
  offset: number;
}

/** Parses Telegram HTML into the plain text and entities the real API would store. */
export function parseTelegramHtml(html: string): ParsedText {
  const byteAt = (i: number): number => Buffer.byteLength(html.slice(0, i), 'utf8');
  const fail = (msg: string): never => {
    throw new HtmlParseError(msg);
  };
  let out = '';
  const entities: TgEntity[] = [];
  const stack: Open[] = [];
  let i = 0;
  while (i < html.length) {
    const c = html[i]!;
    if (c === '&') {
      const dec = decodeEntity(html, i);
      if (dec) {
        out += dec.ch;
        i = dec.next;
        continue;
      }
    }
    if (c !== '<') {
      out += c;
      i++;
      continue;
    }
    const begin = i++;
    if (html[i] !== '/') {
      while (i < html.length && !isSpace(html[i]) && html[i] !== '>') i++;
      if (i >= html.length) fail(`Unclosed start tag at byte offset ${byteAt(begin)}`);
      const tag = html.slice(begin + 1, i).toLowerCase();
      if (!SUPPORTED.has(tag)) fail(`Unsupported start tag "${tag}" at byte offset ${byteAt(begin)}`);
      let arg = '';
      while (html[i] !== '>') {
        while (isSpace(html[i])) i++;
        if (html[i] === '>') break;
        const nameStart = i;
        while (i < html.length && !isSpace(html[i]) && html[i] !== '=' && html[i] !== '>') i++;
        const name = html.slice(nameStart, i);
        if (name === '') fail(`Empty attribute name in the tag "${tag}" at byte offset ${byteAt(begin)}`);
        while (isSpace(html[i])) i++;
        // The documented valueless attribute (<blockquote expandable>); tdlib demands '=' elsewhere.
        if (html[i] !== '=' && tag === 'blockquote' && name === 'expandable') {
          arg = '1';
          continue;
        }
        if (html[i] !== '=')
          fail(
            `Expected equal sign in declaration of an attribute of the tag "${tag}" at byte offset ${byteAt(begin)}`,
          );
        i++;
        while (isSpace(html[i])) i++;
        if (i >= html.length) fail(`Unclosed start tag "${tag}" at byte offset ${byteAt(begin)}`);
        let value = '';
        const quote = html[i];
        if (quote !== '"' && quote !== "'") {
          const tokenStart = i;
          while (isAlnum(html[i]) || html[i] === '.' || html[i] === '-') i++;
          value = html.slice(tokenStart, i).toLowerCase();
          if (!isSpace(html[i]) && html[i] !== '>')
            fail(`Unexpected end of name token at byte offset ${byteAt(tokenStart)}`);
        } else {
          i++;
          while (i < html.length && html[i] !== quote) {
            const dec = html[i] === '&' ? decodeEntity(html, i) : null;
            if (dec) {
              value += dec.ch;
              i = dec.next;
            } else value += html[i++];
          }
          if (html[i] === quote) i++;
        }
        if (i >= html.length) fail(`Unclosed start tag at byte offset ${byteAt(begin)}`);
        if (tag === 'a' && name === 'href') arg = value;
        else if (tag === 'code' && name === 'class' && value.startsWith('language-')) arg = value.slice(9);
        else if (tag === 'span' && name === 'class' && value.startsWith('tg-')) arg = value.slice(3);
        else if (tag === 'tg-emoji' && name === 'emoji-id') arg = value;
        else if (tag === 'blockquote' && name === 'expandable') arg = '1';
      }
      if (tag === 'span' && arg !== 'spoiler')
        fail(`Tag "span" must have class "tg-spoiler" at byte offset ${byteAt(begin)}`);
      stack.push({ tag, arg, offset: out.length });
      i++; // past '>'
    } else {
      if (stack.length === 0) fail(`Unexpected end tag at byte offset ${byteAt(begin)}`);
      while (i < html.length && !isSpace(html[i]) && html[i] !== '>') i++;
      const endName = html.slice(begin + 2, i);
      while (isSpace(html[i])) i++;
      if (html[i] !== '>') fail(`Unclosed end tag at byte offset ${byteAt(begin)}`);
      i++;
      const open = stack.pop()!;
      if (endName !== '' && endName !== open.tag) {
        fail(`Unmatched end tag at byte offset ${byteAt(begin)}, expected "</${open.tag}>", found "</${endName}>"`);
      }
      if (out.length > open.offset) closeEntity(open, out, entities);
    }
  }
  const unclosed = stack.at(-1);
  if (unclosed) fail(`Can't find end tag corresponding to start tag "${unclosed.tag}"`);
  // Same order the API returns: by offset, the longer (outer) entity first.
  entities.sort((a, b) => a.offset - b.offset || b.length - a.length);
  // A lone <code class="language-x"> keeps its language only while parsing (to pair with <pre>).
  for (const e of entities) if (e.type === 'code') delete e.language;
  return { text: out, entities };
}

function closeEntity(open: Open, out: string, entities: TgEntity[]): void {
  const offset = open.offset;
  const length = out.length - offset;
  const last = entities.at(-1);
  const sameSpan = last !== undefined && last.offset === offset && last.length === length;
  const simple = SIMPLE[open.tag];
  if (simple) entities.push({ type: simple, offset, length });
  else if (open.tag === 'span') entities.push({ type: 'spoiler', offset, length });
  else if (open.tag === 'tg-emoji') entities.push({ type: 'custom_emoji', offset, length, custom_emoji_id: open.arg });
  else if (open.tag === 'blockquote')
    entities.push({ type: open.arg ? 'expandable_blockquote' : 'blockquote', offset, length });
  else if (open.tag === 'a') {
    const url = normalizeUrl(open.arg || out.slice(offset));
    if (url) entities.push({ type: 'text_link', offset, length, url }); // an unusable href yields no entity, as in tdlib
  } else if (open.tag === 'code') {
    // <pre><code class="language-x"> becomes one pre entity carrying the language.
    if (sameSpan && last.type === 'pre' && open.arg) last.language = open.arg;
    else entities.push({ type: 'code', offset, length, ...(open.arg ? { language: open.arg } : {}) });
  } else if (open.tag === 'pre') {
    if (sameSpan && last.type === 'code' && last.language) last.type = 'pre';
    else entities.push({ type: 'pre', offset, length });
  }
}

/** tdlib accepts scheme-less links (it assumes http) and drops what no URL parser accepts. */
function normalizeUrl(raw: string): string | null {
  const candidate = /^[a-z][a-z0-9+.-]*:/i.test(raw) ? raw : `http://${raw}`;
  try {
    const url = new URL(candidate);
    return ['http:', 'https:', 'tg:', 'ton:'].includes(url.protocol) ? candidate : null;
  } catch {
    return null;
  }
}

/** The visible text of Telegram HTML (throws HtmlParseError like the API would reject it). */
export function telegramHtmlToPlain(html: string): string {
  return parseTelegramHtml(html).text;
}

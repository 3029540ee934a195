// Canonical Markdown -> Telegram Bot API HTML (parse_mode 'HTML'). HTML rather than MarkdownV2 because
// its escaping is three characters instead of eighteen, and a mistake shows a stray '&lt;' instead of
// failing the whole send with "can't parse entities".
import { renderMarkdown, type MarkdownDialect } from '../../core/surface/index.ts';

import { splitTelegramHtml, telegramVisibleText } from './html-split.ts';

export { splitTelegramHtml, telegramVisibleText };

/** Escapes text for Telegram HTML: the parser only treats `<`, `>` and `&` specially in text. */
export function escapeTelegramHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Escapes an attribute value written in double quotes. */
const attr = (s: string): string => escapeTelegramHtml(s).replace(/"/g, '&quot;');

const telegram: MarkdownDialect = {
  text: escapeTelegramHtml,
  bold: (inner) => `<b>${inner}</b>`,
  italic: (inner) => `<i>${inner}</i>`,
  strike: (inner) => `<s>${inner}</s>`,
  code: (s) => `<code>${escapeTelegramHtml(s)}</code>`,
  link: (label, href) => (href ? `<a href="${attr(href)}">${label}</a>` : label),
  // Telegram attaches the language only to <pre><code class="language-x">, exactly nested.
  codeBlock: (s, lang) =>
    lang
      ? `<pre><code class="language-${attr(lang)}">${escapeTelegramHtml(s)}</code></pre>`
      : `<pre>${escapeTelegramHtml(s)}</pre>`,
  // Telegram cannot nest blockquotes; an inner quote joins its outer one.
  quote: (inner, nested) => (nested ? inner : `<blockquote>${inner}</blockquote>`),
  // Telegram has no headings: a bold line stands out just as well.
  heading: (inner) => `<b>${inner}</b>`,
  rule: '──────────',
};

/**
 * Converts canonical Markdown to Telegram HTML using only tags the Bot API accepts (b, i, s, code,
 * pre, a, blockquote). Text is escaped everywhere (`<script>` arrives as text); headings become bold
 * lines; lists become `• item` / `1. item` lines; tables become a `<pre>` grid; images become links.
 * @example markdownToTelegramHtml('**a < b** [x](https://e.com/?a=1&b=2)')
 * // '<b>a &lt; b</b> <a href="https://e.com/?a=1&amp;b=2">x</a>'
 */
export function markdownToTelegramHtml(md: string): string {
  return renderMarkdown(md, telegram);
}

/** Markdown as the messages it is sent in: Telegram HTML, split at 4096, each part with something visible. */
export function telegramChunks(markdown: string): string[] {
  const chunks = splitTelegramHtml(markdownToTelegramHtml(markdown)).filter(
    (c) => telegramVisibleText(c).trim() !== '',
  );
  // Markdown that renders to nothing visible is still a reply: send it as written rather than drop it.
  if (chunks.length === 0) chunks.push(escapeTelegramHtml(markdown.trim() || '…'));
  return chunks;
}

// Canonical Markdown -> Discord Markdown. Discord reads Markdown itself, so most blocks pass through
// byte for byte; only what Discord lacks is rewritten (tables, deep or setext headings, rules,
// indented or ~~~ code, inline images). Nothing is escaped: escaping would change what people see.
import { splitFenced, lexMarkdown, tableText } from '../../core/surface/index.ts';
import type { MarkedToken, Token } from 'marked';

/** Discord's message content limit, in characters (we count UTF-16 units, never fewer). */
export const DISCORD_TEXT_LIMIT = 2000;

// Discord ends a code block at the first ``` inside it; a zero-width space keeps the backticks visible.
const neutralizeFences = (s: string): string => s.replace(/```/g, '`\u200b`\u200b`');

const fence = (text: string, lang: string): string => `\`\`\`${lang}\n${neutralizeFences(text)}\n\`\`\``;

/** The blank lines after a block belong to the document, not the block: keep them when rewriting it. */
const tail = (raw: string): string => /\n*$/.exec(raw)?.[0] ?? '';

/** A paragraph with its top-level images turned into links (Discord shows `![x](u)` as text). */
function paragraph(raw: string, tokens: Token[]): string {
  if (!tokens.some((t) => t.type === 'image')) return raw;
  const body = tokens
    .map((tok) => {
      const t = tok as MarkedToken;
      if (t.type !== 'image') return t.raw;
      return t.text ? `[${t.text}](${t.href})` : t.href;
    })
    .join('');
  return body + tail(raw);
}

/** How many quotes deep a token's quotes go (a quote in a quote: 2). */
function quoteDepth(tok: Token): number {
  const t = tok as Token & { tokens?: Token[]; items?: Array<{ tokens?: Token[] }> };
  const children = [...(t.tokens ?? []), ...(t.items ?? []).flatMap((item) => item.tokens ?? [])];
  return (t.type === 'blockquote' ? 1 : 0) + Math.max(0, ...children.map(quoteDepth));
}

/**
 * A quote as Discord reads one: every line `> `, one level deep. Discord nests no quotes, and a line
 * starting `>>> ` quotes all the rest of the message, so a Markdown quote in a quote would swallow what
 * follows it; and Discord quotes only the lines that say so, where Markdown also quotes a lazy
 * continuation line. Each line loses at most as many `>` as the quote is deep (a `>` in a quoted code
 * block's text stays).
 */
function quote(tok: Token): string {
  const depth = quoteDepth(tok);
  const markers = new RegExp(`^(?: {0,3}> ?){0,${depth}}`);
  const body = tok.raw.replace(/\n+$/, '');
  return (
    body
      .split('\n')
      .map((line) => `> ${line.replace(markers, '')}`)
      .join('\n') + tail(tok.raw)
  );
}

function block(tok: Token): string {
  const t = tok as MarkedToken;
  switch (t.type) {
    case 'heading': {
      // Discord renders #, ## and ### only, and only written with hashes; deeper ones become bold.
      const line = t.depth <= 3 ? `${'#'.repeat(t.depth)} ${t.text}` : `**${t.text}**`;
      return /^ {0,3}#/.test(t.raw) && t.depth <= 3 ? t.raw : line + tail(t.raw);
    }
    case 'code':
      // An indented block's text keeps its trailing newline; a fenced one's does not.
      return fence(t.text.replace(/\n+$/, ''), (t.lang ?? '').trim().split(/\s+/)[0] ?? '') + tail(t.raw);
    case 'table':
      return fence(tableText(t), '') + tail(t.raw);
    case 'hr': // Discord shows `---` as text and `***` as stray asterisks
      return `──────────${tail(t.raw)}`;
    case 'paragraph':
      return paragraph(t.raw, t.tokens);
    case 'blockquote':
      return quote(t);
    default:
      return t.raw;
  }
}

/**
 * Converts canonical Markdown to Discord Markdown. Paragraphs, emphasis, `~~strike~~`, inline code,
 * links, lists and `#`..`###` headings pass through unchanged; quotes become one level of `> ` lines,
 * tables a code block, `####`+ headings bold lines, images links, rules a line of box-drawing
 * characters, and every code block a ```` ```lang ```` fence.
 * @example markdownToDiscord('| a |\n|---|\n| 1 |') // '```\na\n-\n1\n```'
 */
export function markdownToDiscord(md: string): string {
  return lexMarkdown(md).map(block).join('');
}

/** Masked links, `<@mentions>`/`<url>`/`<:emoji:id>` and inline code spans must not be cut in half. */
const ATOMS = [/\[[^\]\n]*\]\([^)\s]*\)/g, /<[^<>\s]+>/g, /`[^`\n]+`/g];

/**
 * Splits Discord Markdown into messages of at most `limit` characters (default 2000): at paragraph
 * breaks, then line breaks, then spaces; never inside a grapheme cluster (emoji, a letter with its
 * marks) or a link. A code block cut in two is closed at the end of one message and reopened with its
 * language at the start of the next. `[]` for ''.
 * @example splitForDiscord('```py\nx = 1\ny = 2\n```', 16) // ['```py\nx = 1\n```', '```py\ny = 2\n```']
 */
export function splitForDiscord(text: string, limit: number = DISCORD_TEXT_LIMIT): string[] {
  return splitFenced(text, limit, ATOMS);
}

/**
 * A reply as the messages Discord will show: converted, split to the limit, blank parts dropped. Markdown
 * that renders to nothing visible is still a reply, sent as written (or `…`), never dropped.
 * @example discordChunks('**hi**') // ['**hi**']
 */
export function discordChunks(markdown: string, limit: number = DISCORD_TEXT_LIMIT): string[] {
  const chunks = splitForDiscord(markdownToDiscord(markdown), limit).filter((c) => c.trim() !== '');
  return chunks.length > 0 ? chunks : splitForDiscord(markdown.trim() || '…', limit);
}

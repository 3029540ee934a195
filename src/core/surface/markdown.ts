// The core writes canonical Markdown; adapters whose platform speaks another dialect (Telegram HTML,
// Slack mrkdwn) render it through one walker with a small table of dialect functions, so block
// structure (lists, quotes, tables, nesting) is handled once and each adapter states only its syntax.
import { Lexer, getDefaults, type MarkedToken, type Token, type Tokens } from 'marked';

/** What a target dialect says for each construct. Inputs named `inner` are already rendered. */
export interface MarkdownDialect {
  /** Literal text, escaped so the platform shows it as written. */
  text(s: string): string;
  bold(inner: string): string;
  italic(inner: string): string;
  strike(inner: string): string;
  /** Inline code; `s` is raw (unescaped) text. */
  code(s: string): string;
  /** A link; `label` is rendered, `plainLabel` is its text without formatting. */
  link(label: string, href: string, plainLabel: string): string;
  /** A fenced block; `s` is raw text, `lang` the first word of the info string or ''. */
  codeBlock(s: string, lang: string): string;
  /** A quote around rendered blocks; `nested` when inside another quote (most chats cannot nest). */
  quote(inner: string, nested: boolean): string;
  heading(inner: string, depth: number): string;
  /** What a thematic break (`---`) becomes. */
  rule: string;
}

/**
 * Tokenizes Markdown with GFM (tables, ~~strike~~, autolinks) on fresh options, so nothing another
 * module sets through `marked.use()` or `setOptions()` changes how replies are read.
 */
export function lexMarkdown(md: string): Token[] {
  return new Lexer({ ...getDefaults(), gfm: true, breaks: false, pedantic: false }).lex(md);
}

/**
 * Renders Markdown in a dialect: blocks separated by a blank line, lists as `• item` / `1. item`
 * lines (nested lists indented under their item), tables as an aligned code block, raw HTML as
 * literal text, images as links.
 * @example renderMarkdown('**hi** & bye', { ...dialect, text: escapeHtml, bold: (s) => `<b>${s}</b>` })
 * // '<b>hi</b> &amp; bye'
 */
export function renderMarkdown(md: string, dialect: MarkdownDialect): string {
  return blocks(lexMarkdown(md), dialect, 0, '\n\n');
}

function blocks(tokens: Token[], d: MarkdownDialect, quotes: number, joiner: string): string {
  return tokens
    .map((t) => block(t as MarkedToken, d, quotes))
    .filter((s) => s !== '')
    .join(joiner);
}

function block(t: MarkedToken, d: MarkdownDialect, quotes: number): string {
  switch (t.type) {
    case 'paragraph':
      return inline(t.tokens, d);
    case 'text': // the body of a tight list item
      return t.tokens ? inline(t.tokens, d) : d.text(t.text);
    case 'heading':
      return d.heading(inline(t.tokens, d), t.depth);
    case 'code':
      // An indented block's text keeps its trailing newline; a fenced one's does not.
      return d.codeBlock(t.text.replace(/\n+$/, ''), (t.lang ?? '').trim().split(/\s+/)[0] ?? '');
    case 'blockquote':
      return d.quote(blocks(t.tokens, d, quotes + 1, '\n\n'), quotes > 0);
    case 'list':
      return list(t, d, quotes);
    case 'table':
      return d.codeBlock(tableText(t), '');
    case 'hr':
      return d.rule;
    case 'html': // shown as written: replies never carry markup the platform would interpret
      return d.text(t.text.replace(/\n+$/, ''));
    case 'space':
    case 'def':
      return '';
    default:
      return 'raw' in t ? d.text(t.raw) : '';
  }
}

function list(t: Tokens.List, d: MarkdownDialect, quotes: number): string {
  let n = typeof t.start === 'number' ? t.start : 1;
  return t.items
    .map((item) => {
      const marker = t.ordered ? `${n++}. ` : '• ';
      // A tight task item starts with a block-level checkbox: it belongs on the item's first line.
      const [first, ...rest] = item.tokens as MarkedToken[];
      const box = first?.type === 'checkbox' ? (first.checked ? '☑ ' : '☐ ') : '';
      // Continuation lines and nested lists hang under the item's text, not under its marker.
      const body = box + blocks(box ? rest : item.tokens, d, quotes, '\n');
      return marker + body.split('\n').join(`\n${' '.repeat(marker.length)}`);
    })
    .join('\n');
}

function inline(tokens: Token[], d: MarkdownDialect): string {
  return tokens.map((t) => inlineOne(t as MarkedToken, d)).join('');
}

function inlineOne(t: MarkedToken, d: MarkdownDialect): string {
  switch (t.type) {
    case 'text':
      return t.tokens ? inline(t.tokens, d) : d.text(t.text);
    case 'escape':
      return d.text(t.text);
    case 'strong':
      return d.bold(inline(t.tokens, d));
    case 'em':
      return d.italic(inline(t.tokens, d));
    case 'del':
      return d.strike(inline(t.tokens, d));
    case 'codespan':
      return d.code(t.text);
    case 'link':
      return d.link(inline(t.tokens, d), t.href, plainText(t.tokens));
    case 'image': // chats show no inline images: link to it, labelled with its alt text
      return d.link(d.text(t.text || t.href), t.href, t.text || t.href);
    case 'br':
      return '\n';
    case 'checkbox':
      return t.checked ? '☑ ' : '☐ ';
    default:
      return 'raw' in t ? d.text(t.raw) : '';
  }
}

/** The text of inline tokens without any formatting (link labels, table cells). */
export function plainText(tokens: Token[]): string {
  return tokens
    .map((tok) => {
      const t = tok as MarkedToken;
      if (t.type === 'br') return '\n';
      if (t.type === 'checkbox') return t.checked ? '☑ ' : '☐ ';
      if (t.type === 'html') return t.raw;
      if ('tokens' in t && t.tokens) return plainText(t.tokens);
      return 'text' in t ? t.text : '';
    })
    .join('');
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const width = (s: string): number => [...graphemes.segment(s)].length;

/**
 * A GFM table as aligned monospace text, for platforms without tables (columns padded by grapheme
 * count, which keeps Latin, Arabic and most emoji in line).
 * @example tableText(table) // 'a | b\n--+--\n1 | 2'
 */
export function tableText(t: Tokens.Table): string {
  const rows = [t.header, ...t.rows].map((row) => row.map((cell) => plainText(cell.tokens).replace(/\n/g, ' ')));
  const widths = t.header.map((_, col) => Math.max(...rows.map((r) => width(r[col] ?? ''))));
  const pad = (s: string, col: number): string => {
    const gap = (widths[col] ?? 0) - width(s);
    const align = t.align[col];
    if (align === 'right') return ' '.repeat(gap) + s;
    if (align === 'center') return ' '.repeat(gap >> 1) + s + ' '.repeat(gap - (gap >> 1));
    return s + ' '.repeat(gap);
  };
  const line = (r: string[]): string =>
    widths
      .map((_, col) => pad(r[col] ?? '', col))
      .join(' | ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('-+-');
  return [line(rows[0] ?? []), rule, ...rows.slice(1).map(line)].join('\n');
}

// Canonical Markdown -> Slack mrkdwn, and mrkdwn -> messages of section blocks within Slack's limits.
import { splitFenced, renderMarkdown, type MarkdownDialect } from '../../core/surface/index.ts';

/** Escapes text the way Slack asks: only `&`, `<` and `>` are control characters in mrkdwn. */
export function escapeMrkdwn(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

// In `<url|label>` a raw `|` or `>` in the URL would end it early; percent-encoding keeps it a URL.
const url = (href: string): string =>
  href.replace(/&/g, '&amp;').replace(/</g, '%3C').replace(/>/g, '%3E').replace(/\|/g, '%7C');

// Slack ends a code block at the first ``` inside it; a zero-width space keeps the backticks visible.
const neutralizeFences = (s: string): string => s.replace(/```/g, '`\u200b`\u200b`');

const slack: MarkdownDialect = {
  text: escapeMrkdwn,
  bold: (inner) => `*${inner}*`,
  italic: (inner) => `_${inner}_`,
  strike: (inner) => `~${inner}~`,
  code: (s) => `\`${escapeMrkdwn(s)}\``,
  // Slack renders no formatting inside a link label, so the label is plain text.
  link: (_label, href, plain) => {
    if (!href) return escapeMrkdwn(plain);
    return plain === '' || plain === href ? `<${url(href)}>` : `<${url(href)}|${escapeMrkdwn(plain)}>`;
  },
  // Slack shows no languages on code blocks; a language word would appear as the first code line.
  codeBlock: (s) => `\`\`\`\n${neutralizeFences(escapeMrkdwn(s))}\n\`\`\``,
  // Slack cannot nest quotes; an inner quote joins its outer one.
  quote: (inner, nested) =>
    nested
      ? inner
      : inner
          .split('\n')
          .map((line) => `> ${line}`)
          .join('\n'),
  heading: (inner) => `*${inner}*`,
  rule: '──────────',
};

/**
 * Converts canonical Markdown to Slack mrkdwn: `*bold*`, `_italic_`, `~strike~`, `` `code` ``,
 * ```` ``` ```` blocks without a language, `<url|label>` links, `• ` bullets, `> ` quotes; headings
 * become bold lines and tables a code block. `&`, `<`, `>` are escaped as `&amp;` `&lt;` `&gt;`.
 * @example markdownToMrkdwn('**a < b** [x](https://e.com/?q=1&r=2)') // '*a &lt; b* <https://e.com/?q=1&amp;r=2|x>'
 */
export function markdownToMrkdwn(md: string): string {
  return renderMarkdown(md, slack);
}

/** A section block of mrkdwn text, as chat.postMessage takes it. */
export interface SlackSection {
  type: 'section';
  text: { type: 'mrkdwn'; text: string };
}

/** One message to post: `text` is the notification fallback, `blocks` what Slack shows. */
export interface SlackMessagePart {
  text: string;
  blocks: SlackSection[];
}

/** Slack's limits; the defaults are the documented ones for messages. */
export interface SlackSplitOptions {
  /** Characters in one section's text. Default 3000. */
  sectionLimit?: number;
  /** Blocks in one message. Default 50. */
  maxBlocks?: number;
  /** Characters in a message's `text` (the fallback, which joins the sections). Default 40000. */
  messageLimit?: number;
}

/** Slack's `<…>` links and mentions and its `&amp;`-style escapes must not be cut in half. */
const ATOMS = [/<[^<>\n]*>/g, /&(?:amp|lt|gt);/g];

/**
 * Splits mrkdwn into messages of section blocks: each section within `sectionLimit` (cut at
 * paragraph, then line, then space boundaries; ``` blocks closed and reopened across a cut), each
 * message at most `maxBlocks` sections and a fallback `text` (the sections joined by a newline) within
 * `messageLimit`. Messages come in order; `[]` for ''.
 * @example splitForSlack('one\n\ntwo', { sectionLimit: 3 })
 * // [{ text: 'one\ntwo', blocks: [<section 'one'>, <section 'two'>] }]
 */
export function splitForSlack(mrkdwn: string, options: SlackSplitOptions = {}): SlackMessagePart[] {
  const { sectionLimit = 3000, maxBlocks = 50, messageLimit = 40000 } = options;
  for (const [name, value] of Object.entries({ sectionLimit, maxBlocks, messageLimit })) {
    if (!Number.isInteger(value) || value < 1)
      throw new RangeError(`splitForSlack: ${name} must be a positive integer, got ${value}`);
  }
  if (sectionLimit > messageLimit) {
    throw new RangeError(
      `splitForSlack: sectionLimit (${sectionLimit}) must not exceed messageLimit (${messageLimit})`,
    );
  }
  const messages: SlackMessagePart[] = [];
  let current: string[] = [];
  let length = 0;
  const flush = (): void => {
    if (current.length === 0) return;
    messages.push({
      text: current.join('\n'),
      blocks: current.map((text) => ({ type: 'section', text: { type: 'mrkdwn', text } })),
    });
    current = [];
    length = 0;
  };
  for (const section of splitFenced(mrkdwn, sectionLimit, ATOMS)) {
    const added = (current.length > 0 ? 1 : 0) + section.length;
    if (current.length === maxBlocks || length + added > messageLimit) flush();
    length += (current.length > 0 ? 1 : 0) + section.length;
    current.push(section);
  }
  flush();
  return messages;
}

/** Slack's escapes back to the characters they stand for. `&amp;` last, so `&amp;lt;` stays `&lt;`. */
export function unescapeMrkdwn(s: string): string {
  return s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/**
 * What a person wrote in Slack, as plain text for the agent: `<@U1>` → `@U1`, `<#C1|general>` →
 * `#general`, `<!here>` → `@here`, `<https://x|label>` → `label (https://x)`, `<https://x>` → the URL,
 * and `&lt;` `&gt;` `&amp;` unescaped. Formatting characters (`*bold*`) stay as written.
 * @example slackTextToPlain('<@U1> see <https://e.com|docs> &amp; more') // '@U1 see docs (https://e.com) & more'
 */
export function slackTextToPlain(text: string): string {
  const plain = text.replace(/<([^<>\n]*)>/g, (_all, inner: string) => {
    const [target = '', label] = inner.split('|', 2) as [string, string?];
    if (target.startsWith('@')) return label ? `@${label.replace(/^@/, '')}` : target;
    if (target.startsWith('#')) return `#${label ?? target.slice(1)}`;
    if (target.startsWith('!')) return label ?? `@${target.slice(1).split('^')[0]}`;
    return label && label !== target ? `${label} (${target})` : target;
  });
  return unescapeMrkdwn(plain);
}

/**
 * `text` without a leading mention of the bot (`<@UBOT> deploy` → `deploy`); unchanged when the
 * mention is all there is, so an empty message never reaches the agent.
 */
export function stripBotMention(text: string, botUserId: string): string {
  const stripped = text.replace(new RegExp(`^\\s*<@${botUserId}(?:\\|[^>]*)?>[\\s,:]*`), '');
  return stripped.trim() === '' ? text : stripped;
}

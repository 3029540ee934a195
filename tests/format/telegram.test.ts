import { describe, expect, it } from 'vitest';
import { markdownToTelegramHtml, splitTelegramHtml, telegramVisibleText } from '../../src/adapters/telegram/format.ts';
// The fake's parser is a port of tdlib's: it accepts and rejects what Telegram would, and gives the
// text Telegram counts against the limit — an oracle independent of the splitter's own reader.
import { parseTelegramHtml } from '../fakes/telegram/html.ts';
import { ARABIC, EMOJI, expectReassembles, genReply, telegramHtmlProblems } from './helpers.ts';

const visible = (html: string): string => parseTelegramHtml(html).text;

describe('markdownToTelegramHtml', () => {
  it('escapes <, > and & in text so Telegram shows them as written', () => {
    expect(markdownToTelegramHtml('a < b && c > d')).toBe('a &lt; b &amp;&amp; c &gt; d');
    const html = markdownToTelegramHtml('<script>alert("x")</script>');
    expect(html).toBe('&lt;script&gt;alert("x")&lt;/script&gt;');
    expect(visible(html)).toBe('<script>alert("x")</script>');
  });

  it('renders nested formatting with supported tags only', () => {
    expect(markdownToTelegramHtml('**bold _it ~~gone~~_ `x<y`**')).toBe(
      '<b>bold <i>it <s>gone</s></i> <code>x&lt;y</code></b>',
    );
  });

  it('keeps < and & inside code blocks as text, with the language on <pre><code>', () => {
    const html = markdownToTelegramHtml('```ts\nif (a < b && c) {}\n```');
    expect(html).toBe('<pre><code class="language-ts">if (a &lt; b &amp;&amp; c) {}</code></pre>');
    expect(parseTelegramHtml(html).entities).toEqual([{ type: 'pre', offset: 0, length: 18, language: 'ts' }]);
    expect(markdownToTelegramHtml('```\n<b>\n```')).toBe('<pre>&lt;b&gt;</pre>');
  });

  it('escapes & and " in link URLs', () => {
    const html = markdownToTelegramHtml('[docs](https://e.com/?a=1&b="2")');
    expect(html).toBe('<a href="https://e.com/?a=1&amp;b=&quot;2&quot;">docs</a>');
    expect(parseTelegramHtml(html).entities[0]).toMatchObject({ type: 'text_link', url: 'https://e.com/?a=1&b="2"' });
  });

  it('turns headings into bold lines, lists into • / 1. lines, images into links', () => {
    const md =
      '## Plan\n\n- one\n- two\n  - nested\n\n3. three\n4. four\n\n- [x] done\n\n![chart](https://e.com/c.png)';
    expect(markdownToTelegramHtml(md)).toBe(
      '<b>Plan</b>\n\n• one\n• two\n  • nested\n\n3. three\n4. four\n\n• ☑ done\n\n<a href="https://e.com/c.png">chart</a>',
    );
  });

  it('renders quotes as one blockquote (Telegram cannot nest them) and tables as a <pre> grid', () => {
    expect(markdownToTelegramHtml('> outer\n>\n> > inner')).toBe('<blockquote>outer\n\ninner</blockquote>');
    expect(markdownToTelegramHtml('| k | v |\n|---|--:|\n| a | 10 |')).toBe('<pre>k |  v\n--+---\na | 10</pre>');
  });

  it('preserves Arabic with diacritics, RTL text and emoji byte for byte', () => {
    const md = `${ARABIC} ${EMOJI.join(' ')}\n\nשָׁלוֹם **${ARABIC}**`;
    const html = markdownToTelegramHtml(md);
    expect(html).toBe(`${ARABIC} ${EMOJI.join(' ')}\n\nשָׁלוֹם <b>${ARABIC}</b>`);
    expect(Buffer.from(visible(html))).toEqual(Buffer.from(`${ARABIC} ${EMOJI.join(' ')}\n\nשָׁלוֹם ${ARABIC}`));
  });

  it('produces HTML Telegram accepts for every generated reply', () => {
    for (const seed of [1, 2, 3]) {
      const html = markdownToTelegramHtml(genReply(seed, 3000));
      expect(telegramHtmlProblems(html)).toEqual([]);
      expect(() => parseTelegramHtml(html)).not.toThrow();
    }
  });
});

describe('splitTelegramHtml', () => {
  /** Every chunk: valid on its own, within the limit as Telegram counts, and the text reassembles. */
  const checkSplit = (html: string, limit: number): string[] => {
    const chunks = splitTelegramHtml(html, limit);
    for (const c of chunks) {
      expect(telegramHtmlProblems(c), c.slice(0, 200)).toEqual([]);
      expect(visible(c).length).toBeLessThanOrEqual(limit);
      expect(telegramVisibleText(c)).toBe(visible(c));
    }
    expectReassembles(visible(html), chunks.map(visible));
    return chunks;
  };

  it('returns short HTML untouched, and nothing for nothing', () => {
    expect(splitTelegramHtml('<b>hi</b> &amp; bye')).toEqual(['<b>hi</b> &amp; bye']);
    expect(splitTelegramHtml('')).toEqual([]);
  });

  it('counts the limit on the parsed text: tags and entity spelling are free', () => {
    const html = `<b>${'&amp;'.repeat(4096)}</b>`; // 20k characters of HTML, 4096 of text
    expect(splitTelegramHtml(html)).toEqual([html]);
    expect(splitTelegramHtml(`<b>${'&amp;'.repeat(4097)}</b>`)).toHaveLength(2);
  });

  it('counts UTF-16 units, so 2048 emoji fit and 2049 do not', () => {
    expect(splitTelegramHtml('😀'.repeat(2048))).toHaveLength(1);
    const chunks = checkSplit('😀'.repeat(2049), 4096);
    expect(chunks.map((c) => c.length)).toEqual([4096, 2]);
  });

  it('prefers paragraph boundaries over nearer line boundaries', () => {
    const html = `${'a'.repeat(50)}\n\n${'b'.repeat(30)}\n${'c'.repeat(30)}\n${'d'.repeat(30)}`;
    expect(checkSplit(html, 100)[0]).toBe('a'.repeat(50));
  });

  it('never cuts inside an entity, even in one giant word', () => {
    const chunks = checkSplit('&lt;'.repeat(5000), 4096);
    for (const c of chunks) expect(c).toMatch(/^(&lt;)+$/);
  });

  it('closes open tags at a cut and reopens them, attributes and all', () => {
    const words = Array.from({ length: 200 }, (_, i) => `w${i}`).join(' ');
    const chunks = checkSplit(`<a href="https://e.com/?a=1&amp;b=2"><b>${words}</b></a> tail`, 100);
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks.slice(0, -1))
      expect(c).toMatch(/^<a href="https:\/\/e\.com\/\?a=1&amp;b=2"><b>.*<\/b><\/a>$/s);
  });

  it('splits a 6,000-character code block into balanced <pre><code> chunks', () => {
    const code = Array.from({ length: 300 }, (_, i) => `if (x${i} < y && z) { f("${i}") }`).join('\n');
    expect(code.length).toBeGreaterThan(6000);
    const html = markdownToTelegramHtml(`\`\`\`python\n${code}\n\`\`\``);
    const chunks = checkSplit(html, 4096);
    expect(chunks).toHaveLength(3);
    for (const c of chunks) {
      expect(c.startsWith('<pre><code class="language-python">') && c.endsWith('</code></pre>')).toBe(true);
      expect(parseTelegramHtml(c).entities).toEqual([
        { type: 'pre', offset: 0, length: visible(c).length, language: 'python' },
      ]);
    }
    expect(chunks.map(visible).join('\n')).toBe(code); // line cuts drop exactly one newline each
  });

  it('keeps Arabic harakat and emoji clusters whole at hard cuts', () => {
    const word = ARABIC.replace(/ /g, '') + EMOJI.join('');
    const chunks = checkSplit(`<i>${word.repeat(60)}</i>`, 50);
    expect(chunks.map(visible).join('')).toBe(word.repeat(60));
    for (const c of chunks) expect(visible(c)).not.toMatch(/^(?:\p{M}|\u200d|[\u{1f3fb}-\u{1f3ff}])/u);
  });

  it('property: 10,000-character replies split within the limit and reassemble exactly', () => {
    for (const seed of [101, 202, 303, 404, 505]) {
      const html = markdownToTelegramHtml(genReply(seed, 10_000));
      expect(visible(html).length).toBeGreaterThan(8000);
      for (const limit of [4096, 1000, 300]) {
        const chunks = checkSplit(html, limit);
        expect(chunks.length).toBeGreaterThanOrEqual(Math.ceil(visible(html).length / limit));
      }
    }
  });
});

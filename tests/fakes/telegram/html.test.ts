// parse_mode HTML as Telegram parses it: entities with UTF-16 offsets, the four named entities, and
// tdlib's error messages for malformed input.
import { describe, expect, it } from 'vitest';
import { HtmlParseError, parseTelegramHtml, telegramHtmlToPlain } from './html.ts';

describe('parseTelegramHtml', () => {
  it('maps every supported tag to its entity', () => {
    const html =
      '<b>b</b><strong>s</strong><i>i</i><em>e</em><u>u</u><ins>n</ins><s>s</s><strike>k</strike>' +
      '<del>d</del><tg-spoiler>p</tg-spoiler><span class="tg-spoiler">q</span><code>c</code><blockquote>q</blockquote>';
    const { text, entities } = parseTelegramHtml(html);
    expect(text).toBe('bsieunskdpqcq');
    expect(entities.map((e) => e.type)).toEqual([
      'bold',
      'bold',
      'italic',
      'italic',
      'underline',
      'underline',
      'strikethrough',
      'strikethrough',
      'strikethrough',
      'spoiler',
      'spoiler',
      'code',
      'blockquote',
    ]);
    expect(entities.map((e) => e.offset)).toEqual([...Array(13).keys()]);
  });

  it('handles links, pre with a language, nesting and expandable quotes', () => {
    expect(parseTelegramHtml('<a href="https://kazma.dev/x?a=1&amp;b=2">docs</a>')).toEqual({
      text: 'docs',
      entities: [{ type: 'text_link', offset: 0, length: 4, url: 'https://kazma.dev/x?a=1&b=2' }],
    });
    expect(parseTelegramHtml('<pre><code class="language-ts">let x</code></pre>').entities).toEqual([
      { type: 'pre', offset: 0, length: 5, language: 'ts' },
    ]);
    expect(parseTelegramHtml('<b>bold <i>both</i></b>').entities).toEqual([
      { type: 'bold', offset: 0, length: 9 },
      { type: 'italic', offset: 5, length: 4 },
    ]);
    expect(parseTelegramHtml('<blockquote expandable>long</blockquote>').entities[0]?.type).toBe(
      'expandable_blockquote',
    );
    expect(parseTelegramHtml('<b></b>x').entities).toEqual([]); // empty entities are dropped
  });

  it('decodes &lt; &gt; &amp; &quot; and numeric references; other names stay literal', () => {
    expect(telegramHtmlToPlain('a &lt;b&gt; &amp; &quot;c&quot; &#1605; &#x1F44B; &apos; &nbsp;')).toBe(
      'a <b> & "c" م 👋 &apos; &nbsp;',
    );
  });

  it('counts offsets in UTF-16 code units (emoji count 2, Arabic diacritics 1 each)', () => {
    const { text, entities } = parseTelegramHtml('👋🏽 <b>مَرْحَبًا</b>');
    expect(text).toBe('👋🏽 مَرْحَبًا');
    expect(entities).toEqual([{ type: 'bold', offset: 5, length: 9 }]);
  });

  it.each([
    ['<b>open', 'Can\'t find end tag corresponding to start tag "b"'],
    ['a < b', 'Unsupported start tag "" at byte offset 2'],
    ['<br>', 'Unsupported start tag "br" at byte offset 0'],
    ['مرحبا <p>x</p>', 'Unsupported start tag "p" at byte offset 11'],
    ['<b>x</i>', 'Unmatched end tag at byte offset 4, expected "</b>", found "</i>"'],
    ['x</b>', 'Unexpected end tag at byte offset 1'],
    ['<b', 'Unclosed start tag at byte offset 0'],
    ['<span>x</span>', 'Tag "span" must have class "tg-spoiler" at byte offset 0'],
    ['<a href>x</a>', 'Expected equal sign in declaration of an attribute of the tag "a" at byte offset 0'],
  ])('rejects %j like tdlib', (html, message) => {
    expect(() => parseTelegramHtml(html)).toThrow(HtmlParseError);
    expect(() => parseTelegramHtml(html)).toThrow(message);
  });
});

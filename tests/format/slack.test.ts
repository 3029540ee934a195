import { describe, expect, it } from 'vitest';
import { markdownToMrkdwn, splitForSlack, type SlackMessagePart } from '../../src/adapters/slack/format.ts';
import { ARABIC, EMOJI, expectReassembles, fenceLines, genReply, unfence } from './helpers.ts';

const sections = (parts: SlackMessagePart[]): string[] => parts.flatMap((p) => p.blocks.map((b) => b.text.text));

describe('markdownToMrkdwn', () => {
  it('escapes &, < and > the way Slack asks', () => {
    expect(markdownToMrkdwn('a < b && c > d')).toBe('a &lt; b &amp;&amp; c &gt; d');
    expect(markdownToMrkdwn('<script>alert(1)</script>')).toBe('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('maps bold, italic, strike and code, nested', () => {
    expect(markdownToMrkdwn('**bold _it_** ~~gone~~ `a<b`')).toBe('*bold _it_* ~gone~ `a&lt;b`');
  });

  it('writes code blocks without a language, escaped, with inner fences neutralised', () => {
    expect(markdownToMrkdwn('```ts\nif (a < b && c) {}\n```')).toBe('```\nif (a &lt; b &amp;&amp; c) {}\n```');
    expect(markdownToMrkdwn('````\nx ``` y\n````')).toBe('```\nx `\u200b`\u200b` y\n```');
  });

  it('writes links as <url|label>, escaping & in the URL and | or > so they cannot end it', () => {
    expect(markdownToMrkdwn('[**the** docs](https://e.com/?a=1&b=2)')).toBe('<https://e.com/?a=1&amp;b=2|the docs>');
    expect(markdownToMrkdwn('[x](https://e.com/a|b>c)')).toBe('<https://e.com/a%7Cb%3Ec|x>');
    expect(markdownToMrkdwn('see https://e.com/x')).toBe('see <https://e.com/x>');
  });

  it('writes bullets, numbered lists, quotes, headings and images', () => {
    const md =
      '# Title\n\n- one\n- two\n  - nested\n\n1. first\n2. second\n\n> quoted\n> more\n\n![chart](https://e.com/c.png)';
    expect(markdownToMrkdwn(md)).toBe(
      '*Title*\n\n• one\n• two\n  • nested\n\n1. first\n2. second\n\n> quoted\n> more\n\n<https://e.com/c.png|chart>',
    );
  });

  it('preserves Arabic with diacritics and emoji byte for byte', () => {
    const md = `${ARABIC} ${EMOJI.join('')}`;
    expect(Buffer.from(markdownToMrkdwn(md))).toEqual(Buffer.from(md));
  });
});

describe('splitForSlack', () => {
  it('puts a short reply in one message with one section', () => {
    expect(splitForSlack('hello')).toEqual([
      { text: 'hello', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'hello' } }] },
    ]);
    expect(splitForSlack('')).toEqual([]);
  });

  it('60 paragraphs → more than 50 blocks → two messages, in order', () => {
    const paragraphs = Array.from({ length: 60 }, (_, i) => `Paragraph ${i}: ${'words '.repeat(10).trim()}`);
    const parts = splitForSlack(markdownToMrkdwn(paragraphs.join('\n\n')), { sectionLimit: 80 });
    expect(parts.map((p) => p.blocks.length)).toEqual([50, 10]);
    expect(sections(parts)).toEqual(paragraphs);
    expect(parts[0]!.text).toBe(paragraphs.slice(0, 50).join('\n'));
  });

  it('obeys the 3000-character section and 40,000-character message limits by default', () => {
    const paragraphs = Array.from({ length: 60 }, (_, i) => `${i} ${'x'.repeat(2500)}`);
    const parts = splitForSlack(paragraphs.join('\n\n'));
    expect(parts.length).toBe(4); // 15 sections of ~2500 fill 40,000 before 50 blocks do
    for (const p of parts) {
      expect(p.blocks.length).toBeLessThanOrEqual(50);
      expect(p.text.length).toBeLessThanOrEqual(40_000);
      for (const b of p.blocks) expect(b.text.text.length).toBeLessThanOrEqual(3000);
    }
    expect(sections(parts)).toEqual(paragraphs);
  });

  it('keeps ``` balanced across sections of a long code block', () => {
    const code = Array.from({ length: 300 }, (_, i) => `x${i} &lt; y${i}`).join('\n');
    const parts = splitForSlack(`\`\`\`\n${code}\n\`\`\``, { sectionLimit: 1000 });
    const texts = sections(parts);
    expect(texts.length).toBeGreaterThan(3);
    for (const t of texts) expect(t).toMatch(/^```\n[^`]+\n```$/);
    expect(texts.map((t) => t.slice(4, -4)).join('\n')).toBe(code);
  });

  it('closes and reopens a code block nested in a list (indented fences are fences to Slack)', () => {
    const code = Array.from({ length: 120 }, (_, i) => `     let v${i} = ${i};`).join('\n');
    const md = `Steps:\n\n1. First\n   - nested item\n     \`\`\`\n${code}\n     \`\`\`\n2. Second`;
    const texts = sections(splitForSlack(markdownToMrkdwn(md), { sectionLimit: 500 }));
    expect(texts.length).toBeGreaterThan(3);
    const fences = (t: string) => t.split('\n').filter((line) => /^[ \t]*```/.test(line)).length;
    for (const t of texts) {
      expect(t.length).toBeLessThanOrEqual(500);
      expect(fences(t) % 2, t).toBe(0);
    }
    expect(texts.join('\n').match(/let v\d+ = \d+;/g)).toHaveLength(120);
  });

  it('never cuts a <url|label> link or an &amp; escape in half', () => {
    const line = Array.from({ length: 200 }, (_, i) => `<https://e.com/${i}?a=1&amp;b=2|link number ${i}> &amp;`).join(
      ' ',
    );
    for (const t of sections(splitForSlack(line, { sectionLimit: 150 }))) {
      expect(t.replace(/<https:\/\/e\.com\/\d+\?a=1&amp;b=2\|link number \d+>/g, '').replace(/&amp;/g, '')).not.toMatch(
        /[<>&|]/,
      );
    }
  });

  it('property: 10,000-character replies fit every limit, stay balanced and reassemble', () => {
    for (const seed of [7, 8, 9, 10]) {
      const mrkdwn = markdownToMrkdwn(genReply(seed, 10_000));
      for (const options of [
        {},
        { sectionLimit: 500, maxBlocks: 5, messageLimit: 2000 },
        { sectionLimit: 200, maxBlocks: 50, messageLimit: 600 },
      ]) {
        const { sectionLimit = 3000, maxBlocks = 50, messageLimit = 40_000 } = options;
        const parts = splitForSlack(mrkdwn, options);
        for (const p of parts) {
          expect(p.blocks.length).toBeLessThanOrEqual(maxBlocks);
          expect(p.text.length).toBeLessThanOrEqual(messageLimit);
          for (const b of p.blocks) {
            expect(b.text.text.length).toBeLessThanOrEqual(sectionLimit);
            expect(fenceLines(b.text.text) % 2).toBe(0);
          }
        }
        expectReassembles(mrkdwn, sections(parts), unfence);
      }
    }
  });

  it('rejects limits that cannot work, naming the option', () => {
    expect(() => splitForSlack('x', { maxBlocks: 0 })).toThrow(/maxBlocks/);
    expect(() => splitForSlack('x', { sectionLimit: 5000, messageLimit: 4000 })).toThrow(/sectionLimit/);
  });
});

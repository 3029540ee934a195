import { describe, expect, it } from 'vitest';
import { markdownToDiscord, splitForDiscord } from '../../src/adapters/discord/format.ts';
import { ARABIC, EMOJI, expectReassembles, fenceLines, genReply, unfence } from './helpers.ts';

describe('markdownToDiscord', () => {
  it('passes supported Markdown through byte for byte', () => {
    const md = [
      '# One\n\n## Two\n\n### Three',
      '**bold _it_ ~~gone~~** `a<b` ||spoiler|| [link](https://e.com/?a=1&b=2)',
      '- one\n- two\n  - nested\n\n1. first\n2. second',
      '> quoted\n> more',
      '```ts\nif (a < b && c) {}\n```',
      `${ARABIC} ${EMOJI.join(' ')}`,
    ].join('\n\n');
    expect(markdownToDiscord(md)).toBe(md);
  });

  it('escapes nothing: Discord shows < > & as written', () => {
    expect(markdownToDiscord('a < b && c > d')).toBe('a < b && c > d');
    expect(markdownToDiscord('<script>alert(1)</script>')).toBe('<script>alert(1)</script>');
  });

  it('rewrites what Discord lacks: tables, deep and setext headings, rules, images, ~~~ and indented code', () => {
    expect(markdownToDiscord('| k | v |\n|---|--:|\n| a | 10 |\n\nafter')).toBe(
      '```\nk |  v\n--+---\na | 10\n```\n\nafter',
    );
    expect(markdownToDiscord('#### Deep\n\nTitle\n=====')).toBe('**Deep**\n\n# Title');
    expect(markdownToDiscord('a\n\n---\n\nb')).toBe('a\n\n──────────\n\nb');
    expect(markdownToDiscord('see ![chart](https://e.com/c.png) now')).toBe('see [chart](https://e.com/c.png) now');
    expect(markdownToDiscord('~~~py\nx = 1\n~~~')).toBe('```py\nx = 1\n```');
    expect(markdownToDiscord('text\n\n    indented()\n')).toBe('text\n\n```\nindented()\n```\n');
  });

  it('writes a quote as one level of `> ` lines: Discord has no nested quotes, and `>>> ` quotes the rest of the message', () => {
    // A quote three deep, then a paragraph: in Markdown the paragraph is not quoted; to Discord `>>> ` would quote it.
    expect(markdownToDiscord('>>> deep\n\nafter')).toBe('> deep\n\nafter');
    expect(markdownToDiscord('> > nested\n> outer')).toBe('> nested\n> outer');
    // A lazy line belongs to the quote in Markdown; Discord quotes only the lines that say so.
    expect(markdownToDiscord('> quoted\nlazy line\n\nafter')).toBe('> quoted\n> lazy line\n\nafter');
    expect(markdownToDiscord(`> ${ARABIC} ${EMOJI[0]}\n>\n> **b**`)).toBe(`> ${ARABIC} ${EMOJI[0]}\n> \n> **b**`);
    // A `>` in the text of a quoted code block is code, not a quote.
    expect(markdownToDiscord('> ```\n> > kept\n> ```')).toBe('> ```\n> > kept\n> ```');
  });

  it('keeps a ``` inside code from ending the block early', () => {
    expect(markdownToDiscord('````md\nuse ``` fences\n````')).toBe('```md\nuse `\u200b`\u200b` fences\n```');
  });
});

describe('splitForDiscord', () => {
  it('returns a short message as is', () => {
    expect(splitForDiscord('hi <@123>')).toEqual(['hi <@123>']);
    expect(splitForDiscord('')).toEqual([]);
  });

  it('prefers paragraph boundaries over nearer line boundaries', () => {
    const text = `${'a'.repeat(1200)}\n\n${'b'.repeat(500)}\n${'c'.repeat(500)}`;
    expect(splitForDiscord(text)).toEqual(['a'.repeat(1200), `${'b'.repeat(500)}\n${'c'.repeat(500)}`]);
  });

  it('closes and reopens a code block nested in a list (indented fences are fences to Discord)', () => {
    const code = Array.from({ length: 120 }, (_, i) => `     let v${i} = ${i};`).join('\n');
    const md = `Steps:\n\n1. First\n   - nested item\n     \`\`\`ts\n${code}\n     \`\`\`\n2. Second`;
    const chunks = splitForDiscord(markdownToDiscord(md), 500);
    expect(chunks.length).toBeGreaterThan(3);
    const fences = (c: string) => c.split('\n').filter((line) => /^[ \t]*```/.test(line)).length;
    for (const c of chunks) {
      expect(c.length).toBeLessThanOrEqual(500);
      expect(fences(c) % 2, c).toBe(0);
    }
    const inner = chunks.filter((c) => c.includes('let v')).slice(1);
    for (const c of inner) expect(c.startsWith('```ts\n'), c).toBe(true);
    expect(chunks.join('\n').match(/let v\d+ = \d+;/g)).toHaveLength(120);
  });

  it("never leaves a part holding only a block's closing fence (an empty block)", () => {
    const code = Array.from({ length: 6 }, (_, i) => `     let v${i} = ${i};`).join('\n');
    const md = `Steps:\n\n1. First\n   - nested item\n     \`\`\`ts\n${code}\n     \`\`\`\n2. Second`;
    const chunks = splitForDiscord(markdownToDiscord(md), 80);
    for (const c of chunks) expect(c, c).not.toMatch(/```[a-z]*\n[ \t]*```/);
    expect(chunks.at(-1)).toBe('2. Second');
    expect(chunks.join('\n').match(/let v\d+ = \d+;/g)).toHaveLength(6);
  });

  it('splits a 6,000-character code block into balanced blocks that reopen with the language', () => {
    const code = Array.from({ length: 250 }, (_, i) => `let v${i} = a < b && "${i}";`).join('\n');
    expect(code.length).toBeGreaterThan(6000);
    const chunks = splitForDiscord(markdownToDiscord(`Here:\n\n\`\`\`ts\n${code}\n\`\`\``));
    expect(chunks[0]).toBe('Here:');
    const blocks = chunks.slice(1);
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    for (const c of blocks) {
      expect(c.length).toBeLessThanOrEqual(2000);
      expect(c).toMatch(/^```ts\n[^`]+\n```$/);
    }
    expect(blocks.map((c) => c.slice(6, -4)).join('\n')).toBe(code);
  });

  it('keeps Arabic harakat, RTL text and emoji clusters whole', () => {
    const text = `${ARABIC.replace(/ /g, '')}${EMOJI.join('')}`.repeat(100);
    const chunks = splitForDiscord(text, 60);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(60);
    expect(chunks.join('')).toBe(text);
    expectReassembles(text, chunks);
  });

  it('does not cut a masked link or a mention in half', () => {
    const text = Array.from({ length: 100 }, (_, i) => `[link number ${i}](https://e.com/${i}) <@${i}0000>`).join(' ');
    for (const c of splitForDiscord(text, 120)) {
      expect(c.replace(/\[link number \d+\]\(https:\/\/e\.com\/\d+\)/g, '').replace(/<@\d+>/g, '')).not.toMatch(
        /[[\]()<>]/,
      );
    }
  });

  it('property: 10,000-character replies split within the limit, balanced, and reassemble', () => {
    for (const seed of [21, 22, 23, 24, 25]) {
      const text = markdownToDiscord(genReply(seed, 10_000));
      for (const limit of [2000, 500]) {
        const chunks = splitForDiscord(text, limit);
        for (const c of chunks) {
          expect(c.length).toBeLessThanOrEqual(limit);
          expect(fenceLines(c) % 2, `unbalanced chunk (seed ${seed})`).toBe(0);
        }
        expectReassembles(text, chunks, unfence);
      }
    }
  });
});

import { describe, expect, it } from 'vitest';
import { splitFenced } from '../../src/core/surface/fence-split.ts';
import { TextCutter, clusterStarts, splitText } from '../../src/core/surface/text-split.ts';
import { rng } from './helpers.ts';
import { ARABIC, EMOJI, clusterBoundaries, expectReassembles, fenceLines, genReply, unfence } from './helpers.ts';

describe('clusterStarts', () => {
  it('agrees with one-pass Intl.Segmenter on random mixes, including clusters longer than a slice', () => {
    const parts = [...EMOJI, 'مَرْ', 'e\u0301', 'a', ' ', '\n', '\r\n', '🇸', '\u0301'.repeat(300), 'क्ष'];
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const r = rng(seed);
      const text = Array.from({ length: 600 }, () => parts[Math.floor(r() * parts.length)]).join('');
      expect([...clusterStarts(text)].flatMap((v, i) => (v ? [i] : []))).toEqual(
        [...clusterBoundaries(text)].sort((a, b) => a - b),
      );
    }
  });

  it('is fast on long text (Intl.Segmenter alone is quadratic in Node 20)', () => {
    const started = performance.now();
    clusterStarts('x'.repeat(200_000));
    expect(performance.now() - started).toBeLessThan(5000);
  });
});

describe('TextCutter', () => {
  it('prefers a paragraph break over a nearer line break', () => {
    const text = 'aaaa\n\nbbbb\ncccc\ndddd';
    expect(new TextCutter(text).cut(0, 16)).toEqual({ end: 4, next: 6, kind: 'paragraph' });
  });

  it('prefers a line break over a space, and a space over cutting a word', () => {
    expect(new TextCutter('aa bb\ncc dd ee').cut(0, 10)).toEqual({ end: 5, next: 6, kind: 'line' });
    expect(new TextCutter('aa bb cc dd').cut(0, 7)).toEqual({ end: 5, next: 6, kind: 'space' });
    expect(new TextCutter('abcdefghij').cut(0, 4)).toEqual({ end: 4, next: 4, kind: 'hard' });
  });

  it('drops a whole run of blank lines or spaces at the cut', () => {
    expect(new TextCutter('aa\n\n\n\nbb').cut(0, 3)).toEqual({ end: 2, next: 6, kind: 'paragraph' });
    expect(new TextCutter('aa    bb').cut(0, 4)).toEqual({ end: 2, next: 6, kind: 'space' });
  });

  it('returns the rest when it fits', () => {
    expect(new TextCutter('short').cut(0, 10)).toEqual({ end: 5, next: 5, kind: 'end' });
  });

  it('refuses a budget that cannot hold one emoji', () => {
    expect(() => new TextCutter('abc').cut(0, 1)).toThrow(RangeError);
  });

  it('keeps atoms whole when anything else fits', () => {
    const text = 'see <https://e.com/a|the docs> now';
    const cut = new TextCutter(text, [/<[^<>]*>/g]).cut(0, 20);
    expect(text.slice(0, cut.end)).toBe('see');
  });

  it('rejects an atom regex without the g flag (matchAll needs it)', () => {
    expect(() => new TextCutter('x', [/x/])).toThrow(TypeError);
  });
});

describe('splitText keeps grapheme clusters whole', () => {
  const check = (text: string, limit: number): string[] => {
    const chunks = splitText(text, limit);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(limit);
    expectReassembles(text, chunks);
    return chunks;
  };

  it('never splits a surrogate pair', () => {
    const chunks = check('😀'.repeat(40), 5);
    for (const c of chunks) expect(c).toMatch(/^(😀)+$/u);
  });

  it('never separates Arabic letters from their harakat', () => {
    const word = ARABIC.replace(/ /g, ''); // no spaces: every cut is a hard cut
    const chunks = check(word.repeat(20), 7);
    expect(chunks.length).toBeGreaterThan(10);
    for (const c of chunks) expect(c).not.toMatch(/^\p{M}/u); // a chunk never starts with a bare mark
    expect(chunks.join('')).toBe(word.repeat(20));
  });

  it('keeps ZWJ families, skin tones and flags whole', () => {
    const text = EMOJI.join('').repeat(30);
    const chunks = check(text, 12);
    for (const c of chunks) for (const piece of new Intl.Segmenter().segment(c)) expect(EMOJI).toContain(piece.segment);
    expect(chunks.join('')).toBe(text);
  });

  it('splits a cluster longer than the limit between code points as a last resort', () => {
    const zalgo = `e${'\u0301'.repeat(50)}x`;
    const chunks = splitText(zalgo, 10);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(10);
    expect(chunks.join('')).toBe(zalgo);
  });

  it('property: random replies reassemble exactly, at cluster boundaries, within the limit', () => {
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const text = genReply(seed, 10_000);
      for (const limit of [37, 256, 1000]) check(text, limit);
    }
  });
});

describe('splitFenced', () => {
  it('closes a cut code block and reopens it with its language', () => {
    const code = Array.from({ length: 40 }, (_, i) => `x${i} = ${i}`).join('\n');
    const chunks = splitFenced(`intro\n\n\`\`\`py\n${code}\n\`\`\`\n\nafter`, 60);
    for (const c of chunks) {
      expect(c.length).toBeLessThanOrEqual(60);
      expect(fenceLines(c) % 2).toBe(0);
    }
    expect(chunks[0]).toBe('intro');
    // The last chunk may carry the closing paragraph too; each code chunk is a complete py block.
    const inner = chunks
      .slice(1)
      .map((c) => c.replace(/\n\nafter$/, ''))
      .filter((c) => c !== 'after');
    expect(chunks.at(-1)!.endsWith('after')).toBe(true);
    for (const c of inner) expect(c).toMatch(/^```py\n[^`]+\n```$/);
    expect(inner.map((c) => c.slice(6, -4)).join('\n')).toBe(code);
  });

  it('never ends a chunk on an opening fence with nothing inside', () => {
    const text = `${'p'.repeat(20)}\n\`\`\`ts\n${'a'.repeat(20)}\n${'b'.repeat(20)}\n\`\`\``;
    const chunks = splitFenced(text, 30);
    for (const c of chunks) expect(c).not.toMatch(/```ts\n```/);
    expectReassembles(text, chunks, unfence);
  });

  it('uses the block’s own closing fence instead of adding one', () => {
    const chunks = splitFenced('```\naaaa\n```\n\nbbbb', 12);
    expect(chunks).toEqual(['```\naaaa\n```', 'bbbb']);
  });

  it('handles ~~~ fences and longer backtick fences alike', () => {
    const body = Array.from({ length: 10 }, (_, i) => `line ${i}`).join('\n');
    for (const fence of ['~~~', '````']) {
      const chunks = splitFenced(`${fence}sh\n${body}\n${fence}`, 30);
      for (const c of chunks) expect(c.startsWith(`${fence}sh\n`) && c.endsWith(`\n${fence}`)).toBe(true);
    }
  });

  it('property: random replies stay balanced and reassemble', () => {
    for (const seed of [11, 12, 13, 14]) {
      const text = genReply(seed, 10_000);
      for (const limit of [120, 700]) {
        const chunks = splitFenced(text, limit);
        for (const c of chunks) {
          expect(c.length).toBeLessThanOrEqual(limit);
          expect(fenceLines(c) % 2, `unbalanced chunk (seed ${seed}, limit ${limit})`).toBe(0);
        }
        expectReassembles(text, chunks, unfence);
      }
    }
  });

  it('clusterBoundaries oracle sees a flag as one cluster', () => {
    expect([...clusterBoundaries('🇸🇦')]).toEqual([4, 0]);
  });
});

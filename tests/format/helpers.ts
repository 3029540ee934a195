// Shared oracles and generators for the format tests: a seeded random reply generator, a check that
// chunks put back together give the original, and a Telegram tag-balance checker.
import { expect } from 'vitest';

/** Text that has tripped chat formatters: Arabic with harakat, RTL, emoji with modifiers/ZWJ, flags. */
export const ARABIC = 'مَرْحَبًا بِكُمْ فِي كَازْمَا';
export const EMOJI = ['👋🏽', '👨‍👩‍👧', '🇸🇦', '🇯🇵', '🏳️‍🌈', '✋🏿', '👍'];

/** mulberry32: a tiny deterministic PRNG, so a failing property run can be replayed by its seed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  'alpha',
  'beta',
  'a < b',
  'c > d',
  'x && y',
  'Tom & Jerry',
  '"quoted"',
  ...ARABIC.split(' '),
  ...EMOJI,
  'العربية',
  'שָׁלוֹם',
  'naïve',
  'e\u0301t\u00e9',
];

/**
 * A canonical-Markdown reply of about `size` characters mixing paragraphs, line breaks, lists,
 * formatting, links with `&`, code blocks with `<`, a long space-free Arabic run and a giant line.
 */
export function genReply(seed: number, size: number): string {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const words = (n: number): string => Array.from({ length: n }, () => pick(WORDS)).join(' ');
  const inline = (): string =>
    pick([
      () => words(3 + Math.floor(r() * 8)),
      () => `**${words(2)} _${words(1)}_**`,
      () => `\`${pick(['a<b', 'x && y', 'i++'])}\``,
      () => `[${words(2)}](https://example.com/?a=1&b=${Math.floor(r() * 99)})`,
      () => `~~${words(2)}~~`,
    ])();
  const blocks: string[] = [];
  let length = 0;
  while (length < size) {
    const kind = r();
    let block: string;
    if (kind < 0.4) block = Array.from({ length: 1 + Math.floor(r() * 4) }, () => `${inline()} ${inline()}`).join('\n');
    else if (kind < 0.55) block = Array.from({ length: 2 + Math.floor(r() * 4) }, () => `- ${inline()}`).join('\n');
    else if (kind < 0.7) {
      const lines = Array.from({ length: 3 + Math.floor(r() * 30) }, (_, i) => `  line(${i}) < ${words(2)} && "x"`);
      block = `\`\`\`${pick(['ts', 'python', ''])}\n${lines.join('\n')}\n\`\`\``;
    } else if (kind < 0.8) block = `> ${inline()}\n> ${words(4)}`;
    else if (kind < 0.9) block = `# ${words(3)}`;
    else if (kind < 0.95)
      block = ARABIC.replace(/ /g, '').repeat(2 + Math.floor(r() * 20)); // no spaces at all
    else block = words(150 + Math.floor(r() * 400)); // one giant line
    blocks.push(block);
    length += block.length + 2;
  }
  return blocks.join('\n\n');
}

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Positions between grapheme clusters of `text` (0 and text.length included). */
export function clusterBoundaries(text: string): Set<number> {
  const set = new Set<number>([text.length]);
  for (const { index } of segmenter.segment(text)) set.add(index);
  return set;
}

/**
 * Asserts that `pieces`, in order, are consecutive slices of `original` separated only by whitespace,
 * with every edge on a grapheme cluster boundary, and that nothing is left over. `variants` lists the
 * ways a chunk may be read back (e.g. without a reopened fence); the first that matches is taken.
 */
export function expectReassembles(
  original: string,
  pieces: string[],
  variants: (p: string) => string[] = (p) => [p],
): void {
  const bounds = clusterBoundaries(original);
  let pos = 0;
  pieces.forEach((chunk, i) => {
    let matched: { at: number; piece: string } | undefined;
    for (let at = pos; !matched; at++) {
      const piece = variants(chunk).find((v) => original.startsWith(v, at));
      if (piece !== undefined) matched = { at, piece };
      else if (i === 0 || at >= original.length || !/\s/.test(original[at]!)) break;
    }
    if (!matched) expect.fail(`chunk ${i} is not the original text at ${pos}: ${JSON.stringify(chunk.slice(0, 80))}…`);
    const { at, piece } = matched;
    expect(bounds.has(at), `chunk ${i} starts inside a grapheme cluster`).toBe(true);
    pos = at + piece.length;
    expect(bounds.has(pos), `chunk ${i} ends inside a grapheme cluster`).toBe(true);
  });
  expect(original.slice(pos).trim(), 'text left over after the last chunk').toBe('');
}

/** Reads a fenced chunk back as original text: maybe without the reopened first and added last fence. */
export function unfence(chunk: string): string[] {
  const head = /^(?:`{3,}|~{3,})[^\n]*\n/;
  const foot = /\n(?:`{3,}|~{3,})$/;
  const both = chunk.replace(head, '').replace(foot, '');
  return [...new Set([chunk, chunk.replace(head, ''), chunk.replace(foot, ''), both])];
}

/** Lines that open or close a code block (zero-width-space-neutralised backticks are not fences). */
export function fenceLines(text: string): number {
  return text.split('\n').filter((line) => /^ {0,3}(`{3,}|~{3,})/.test(line)).length;
}

const TELEGRAM_TAGS = new Set([
  'b',
  'strong',
  'i',
  'em',
  'u',
  'ins',
  's',
  'strike',
  'del',
  'a',
  'code',
  'pre',
  'blockquote',
  'tg-spoiler',
]);

/**
 * Problems that would make Telegram reject `html` or show it wrong: unknown or unbalanced tags, tags
 * inside code, and bare `<`, `>` or `&` (a tag or entity cut in half leaves exactly those).
 */
export function telegramHtmlProblems(html: string): string[] {
  const problems: string[] = [];
  const stack: string[] = [];
  const token = /<(\/?)([a-z-]+)((?:\s+[a-z-]+="[^"<>]*")*)>|&(?:lt|gt|amp|quot|#\d+|#x[\da-f]+);|[<>&]/gi;
  for (const m of html.matchAll(token)) {
    const [all, slash, name] = m;
    if (name === undefined) {
      if (all.length === 1) problems.push(`bare ${all} at ${m.index}`);
      continue;
    }
    const tag = name.toLowerCase();
    if (!TELEGRAM_TAGS.has(tag)) problems.push(`unsupported <${tag}> at ${m.index}`);
    if (slash) {
      if (stack.pop() !== tag) problems.push(`</${tag}> closes nothing open at ${m.index}`);
    } else {
      const inCode = stack.at(-1) === 'code' || (stack.at(-1) === 'pre' && tag !== 'code');
      if (inCode) problems.push(`<${tag}> inside code at ${m.index}`);
      stack.push(tag);
    }
  }
  if (stack.length > 0) problems.push(`unclosed: ${stack.join(', ')}`);
  return problems;
}

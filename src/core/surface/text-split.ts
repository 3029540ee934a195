// Platform-neutral text cutting. Every platform caps a message's length, and a careless cut can land
// inside a surrogate pair (a broken emoji), between a letter and its combining marks (Arabic harakat
// falling off their letters) or inside a link. This module only decides *where* a cut may go; the
// adapters decide what a chunk costs on their platform and what to repair around a cut (tags, fences).

/** Which rule chose a cut: the earlier rules are preferred, `end` means the rest fitted. */
export type CutKind = 'end' | 'paragraph' | 'line' | 'space' | 'hard';

/**
 * A cut of `text` starting at some position: the chunk is `text.slice(start, end)`, the separator
 * `text.slice(end, next)` (blank lines, a newline, or a run of spaces) is dropped, and the next chunk
 * starts at `next`. For a `hard` cut `end === next`.
 */
export interface Cut {
  end: number;
  next: number;
  kind: CutKind;
}

// One segmenter for the process: constructing one loads ICU data, and it holds no per-call state.
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * Marks where grapheme clusters start in `text` (1 at each start and at `text.length`).
 *
 * Intl.Segmenter is quadratic on long strings in Node 20 (150k characters took 40 s), so the text
 * is segmented in short slices, each starting at a cluster start already found: clusters never
 * depend on text before a boundary, and a few characters past a slice's end settle its last one.
 * @example clusterStarts('e\u0301x') // Uint8Array [1, 0, 1, 1]
 */
export function clusterStarts(text: string): Uint8Array {
  const marks = new Uint8Array(text.length + 1);
  marks[text.length] = 1;
  for (let from = 0, size = 256; from < text.length; ) {
    const end = Math.min(text.length, from + size);
    const sliceEnd = Math.min(text.length, end + 8);
    let last = from;
    for (const { index } of graphemes.segment(text.slice(from, sliceEnd))) {
      const p = from + index;
      if (p > end && sliceEnd < text.length) break; // only the slice's own end is in doubt
      marks[p] = 1;
      last = p;
    }
    if (sliceEnd === text.length) break;
    // A cluster longer than the slice (a letter under hundreds of marks): look further.
    if (last === from) size *= 2;
    else [from, size] = [last, 256];
  }
  return marks;
}

const isHigh = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/**
 * Finds cut points in one text, preferring, in order: a paragraph break (blank line), a line break,
 * a run of spaces, then any grapheme cluster boundary. Lengths are UTF-16 code units (JavaScript's
 * `length`), which is never less than the code point count platforms count in, so a chunk that fits
 * here fits there.
 *
 * `atoms` are global regexes whose matches no cut may enter unless nothing else fits (e.g. Slack's
 * `<url|label>` and `&amp;`, or a code fence line).
 *
 * @example new TextCutter('one\n\ntwo').cut(0, 5) // { end: 3, next: 5, kind: 'paragraph' }
 */
export class TextCutter {
  readonly text: string;
  /** 1 where a grapheme cluster starts (and at the end): the only places a cut keeps text intact. */
  private readonly cluster: Uint8Array;
  /** `cluster` minus the insides of atoms: where a preferred cut may go. */
  private readonly allowed: Uint8Array;

  constructor(text: string, atoms: readonly RegExp[] = []) {
    this.text = text;
    this.cluster = clusterStarts(text);
    this.allowed = Uint8Array.from(this.cluster);
    for (const atom of atoms) {
      if (!atom.global) throw new TypeError(`TextCutter: atom ${atom} must be a global regex (flag g)`);
      for (const m of text.matchAll(atom)) {
        for (let i = m.index + 1; i < m.index + m[0].length; i++) this.allowed[i] = 0;
      }
    }
  }

  /** True when a cut at `i` splits no grapheme cluster and no atom. */
  canCutAt(i: number): boolean {
    return this.allowed[i] === 1;
  }

  /**
   * The best cut for a chunk that starts at `start` and may hold at most `budget` units.
   * Always makes progress (`end > start`). Throws a RangeError when `budget < 2`, because a single
   * emoji needs two units and a smaller chunk could only be had by breaking it.
   */
  cut(start: number, budget: number): Cut {
    if (!(budget >= 2)) throw new RangeError(`TextCutter.cut: budget must be at least 2 UTF-16 units, got ${budget}`);
    const { text } = this;
    const max = start + budget;
    if (text.length <= max) return { end: text.length, next: text.length, kind: 'end' };
    const { allowed, cluster } = this;
    return (
      this.atSeparator(start, max, 'paragraph', allowed) ??
      this.atSeparator(start, max, 'line', allowed) ??
      this.atSeparator(start, max, 'space', allowed) ??
      this.hard(start, max, allowed) ??
      // The whole window lies inside one atom: a space inside it is still better than mid-word.
      this.atSeparator(start, max, 'space', cluster) ??
      this.hard(start, max, cluster) ??
      this.codePoint(max)
    );
  }

  /** The last separator of one kind whose chunk side fits in `max` and whose both edges are allowed. */
  private atSeparator(start: number, max: number, kind: 'paragraph' | 'line' | 'space', ok: Uint8Array): Cut | null {
    const { text } = this;
    const isSep =
      kind === 'space' ? (c: string | undefined) => c === ' ' || c === '\t' : (c: string | undefined) => c === '\n';
    for (let p = Math.min(max, text.length - 1); p > start; p--) {
      if (!isSep(text[p])) continue;
      let end = p;
      while (end > start && isSep(text[end - 1])) end--;
      let next = p + 1;
      while (next < text.length && isSep(text[next])) next++;
      // A paragraph break is a run of two or more newlines; a lone one is only a line break.
      const qualifies = kind !== 'paragraph' || next - end >= 2;
      if (qualifies && end > start && ok[end] === 1 && ok[next] === 1) return { end, next, kind };
      p = end; // the whole run was judged; continue before it
    }
    return null;
  }

  /** The last boundary in the window that `ok` allows, cutting mid-word. */
  private hard(start: number, max: number, ok: Uint8Array): Cut | null {
    for (let p = max; p > start; p--) if (ok[p] === 1) return { end: p, next: p, kind: 'hard' };
    return null;
  }

  /**
   * One cluster longer than the budget (e.g. a letter under hundreds of combining marks): split it
   * between code points, still never between the halves of a surrogate pair.
   */
  private codePoint(max: number): Cut {
    const p = isLow(this.text.charCodeAt(max)) && isHigh(this.text.charCodeAt(max - 1)) ? max - 1 : max;
    return { end: p, next: p, kind: 'hard' };
  }
}

/**
 * Splits plain text into chunks of at most `limit` UTF-16 units, cutting at the best boundary
 * {@link TextCutter} finds; the separators at the cuts are dropped. Returns `[]` for empty text.
 * @example splitText('aaa bbb', 4) // ['aaa', 'bbb']
 */
export function splitText(text: string, limit: number, atoms: readonly RegExp[] = []): string[] {
  const cutter = new TextCutter(text, atoms);
  const chunks: string[] = [];
  for (let pos = 0; pos < text.length; ) {
    const cut = cutter.cut(pos, limit);
    chunks.push(text.slice(pos, cut.end));
    pos = cut.next;
  }
  return chunks;
}

/**
 * The longest start of `text` at most `max` UTF-16 units long that ends where a grapheme cluster ends,
 * so a shortened line never shows half an emoji, a flag or a letter without its marks.
 * @example clipText('ab😀', 3) // 'ab'
 */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  // Clusters are settled by the characters around them: a margin past the cut is all that is read.
  const starts = clusterStarts(text.slice(0, max + 64));
  let end = max;
  while (end > 0 && !starts[end]) end--;
  return text.slice(0, end);
}

/** `text` shortened to at most `max` units with a closing `…` (see {@link clipText}). */
export function ellipsis(text: string, max: number): string {
  return text.length <= max ? text : `${clipText(text, max - 1)}…`;
}

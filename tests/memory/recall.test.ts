import { describe, expect, it } from 'vitest';
import { recalledNotes, selectRecalled } from '../../src/core/memory/index.ts';

const settings = { minScore: 0.35, maxGap: 0.25, maxNotes: 6, maxTokens: 600, minBackground: 0.2 };
let n = 0;
const note = (text: string, similarity: number | null = null, source: 'stated' | 'inferred' | 'tool' = 'stated') => ({
  id: `mem_${++n}`,
  owner: 'person:maya',
  text,
  validFrom: null,
  conflictsWith: null,
  subject: null,
  source,
  createdAt: new Date('2026-12-01T09:00:00Z'),
  similarity,
});
/** Twelve notes at the background's similarity: ranks 4–15 of the owner's notes. */
const background = (level: number) => Array.from({ length: 12 }, (_, i) => note(`unrelated note ${i}`, level));

describe('recall with a relevance floor', () => {
  it('recalls a note that stands out from the background, and nothing for an unrelated question', () => {
    const exam = note('My exam is on 14 January', 0.62);
    const notes = [exam, note('I like green tea', 0.31), note('My sister is Sara', 0.3), ...background(0.3)];
    expect(selectRecalled('when is my exam?', notes, settings).map((r) => r.id)).toEqual([exam.id]);
    // Everything near the background, no word shared: nothing at all.
    const flat = [note('My exam is on 14 January', 0.33), ...background(0.3)];
    expect(selectRecalled('what is the weather like?', flat, settings)).toEqual([]);
  });

  it('lifts over the background, not over 0: a model whose unrelated texts score 0.5 recalls nothing by similarity alone', () => {
    const notes = [note('I play chess on Fridays', 0.58), ...background(0.5)];
    expect(selectRecalled('good morning', notes, settings)).toEqual([]);
  });

  it('with fewer than four notes takes the background as min_background: small shared words recall nothing', () => {
    // "What is my sister called?" and "My exam is on 14 January" share "is" and "my": 0.37 under a bag of words.
    expect(selectRecalled('What is my sister called?', [note('My exam is on 14 January', 0.37)], settings)).toEqual([]);
    expect(selectRecalled('What is my sister called?', [note('My sister is called Sara', 0.8)], settings)).toHaveLength(
      1,
    );
  });

  it('counts shared content words (Arabic too) when there is no similarity at all: full text only', () => {
    const arabic = note('امتحاني في الرابع عشر من يناير');
    expect(selectRecalled('متى امتحاني؟', [arabic], settings).map((r) => r.id)).toEqual([arabic.id]);
    expect(selectRecalled('what time is it', [note('My exam is on 14 January')], settings)).toEqual([]);
  });

  it('leaves out what stands behind a gap, and keeps to max_notes and max_tokens', () => {
    const a = note('exam in January', 0.9);
    const b = note('exam room 12', 0.85);
    const c = note('exam snacks', 0.45);
    const picked = selectRecalled('exam', [a, b, c, ...background(0.1)], settings).map((r) => r.id);
    expect(picked).toEqual([a.id, b.id]);
    expect(selectRecalled('exam', [a, b, ...background(0.1)], { ...settings, maxNotes: 1 })).toHaveLength(1);
    const long = note(`exam ${'x'.repeat(3000)}`, 0.9);
    expect(selectRecalled('exam', [long, a, ...background(0.1)], settings).map((r) => r.id)).toEqual([a.id]);
  });

  it('shows the notes fenced, with their ids, dates and sources', () => {
    const text = recalledNotes([note('My exam is on 14 January', 0.9), note('Likes tea', 0.9, 'inferred')], 'UTC');
    expect(text).toMatch(/^Recalled notes/);
    expect(text).toMatch(/«outside:[0-9a-f]+»/);
    expect(text).toContain('2026-12-01, the person said: My exam is on 14 January');
    expect(text).toContain('inferred: Likes tea');
    expect(text).toMatch(/\[mem_\d+\]/);
  });
});

// Which candidate notes are recalled for a question: only those that stand out. A note's score is its
// similarity's lift over the background — the mean similarity of the owner's notes ranked 4 to 15, what
// "unrelated" looks like under this embedding model — plus the share of the question's content words it
// holds (the background is never taken below `min_background`). Only notes at or above the floor are
// kept, and the list is cut at the first large drop, so an unrelated question recalls nothing instead of
// the least unrelated notes.
import type { Candidate } from './store.ts';
import { formsOf } from './forms.ts';
import { contentWords, formsIn } from './words.ts';

/** `memory.recall` in kazma.yaml. */
export interface RecallSettings {
  minScore: number;
  maxGap: number;
  maxNotes: number;
  /** Approximate tokens (~4 characters each) of note text. */
  maxTokens: number;
  /**
   * The least the background is taken to be: with fewer than four other notes there is no background to
   * measure, and texts that share only small words ("is", "my") are that similar under any model.
   */
  minBackground: number;
}

/** A recalled note and why. */
export interface Recalled extends Candidate {
  score: number;
}

/** How much a full match of the question's words counts beside the similarity's lift. */
const OVERLAP_WEIGHT = 0.5;
/** The background is the mean similarity of these ranks (1-based, inclusive). */
const BACKGROUND_RANKS = [4, 15] as const;

/** The mean similarity of ranks 4–15 among `candidates`, and at least `least` (also when fewer than 4 have one). */
export function backgroundOf(candidates: readonly Candidate[], least: number): number {
  const ranked = candidates
    .map((c) => c.similarity)
    .filter((s): s is number => s !== null)
    .sort((a, b) => b - a)
    .slice(BACKGROUND_RANKS[0] - 1, BACKGROUND_RANKS[1]);
  return ranked.length === 0 ? least : Math.max(least, ranked.reduce((sum, s) => sum + s, 0) / ranked.length);
}

/**
 * How much a question's word (its forms) counts in the overlap: the rarer among the candidates, the more
 * (inverse document frequency). A word most notes hold ("called", "اسم") says little about which note is
 * meant, and a word no note holds ("brother" when no note is about one) weighs most, so a question about
 * something never stored overlaps little with the notes that share only its common words.
 */
function rarity(forms: readonly string[], held: readonly Set<string>[]): number {
  const holding = held.filter((h) => forms.some((f) => h.has(f))).length;
  return Math.log((held.length + 1) / (holding + 0.5));
}

/** The notes to recall for `query`, best first (see the file's header). */
export function selectRecalled(query: string, candidates: readonly Candidate[], settings: RecallSettings): Recalled[] {
  const background = backgroundOf(candidates, settings.minBackground);
  const held = candidates.map((c) => formsIn(c.text));
  const asked = contentWords(query).map(formsOf);
  const weights = asked.map((forms) => rarity(forms, held));
  const total = weights.reduce((sum, w) => sum + w, 0);
  const scored = candidates
    .map((c, i) => {
      const matched = asked.reduce(
        (sum, forms, j) => (forms.some((f) => held[i]!.has(f)) ? sum + weights[j]! : sum),
        0,
      );
      const overlap = total === 0 ? 0 : matched / total;
      const lift = c.similarity === null ? 0 : Math.max(0, c.similarity - background);
      return { ...c, score: lift + OVERLAP_WEIGHT * overlap };
    })
    .filter((c) => c.score >= settings.minScore)
    .sort((a, b) => b.score - a.score);
  const picked: Recalled[] = [];
  let tokens = 0;
  for (const [i, c] of scored.entries()) {
    if (i > 0 && scored[i - 1]!.score - c.score > settings.maxGap) break;
    if (picked.length >= settings.maxNotes) break;
    const cost = Math.ceil(c.text.length / 4);
    if (tokens + cost > settings.maxTokens) continue;
    tokens += cost;
    picked.push(c);
  }
  return picked;
}

// The recall benchmark's scores may only rise: with memory.recall's defaults, each half of the dataset
// scores at least what bench/memory-recall/results.v1.json holds (precision and recall no lower, no more
// injections on unanswerable questions), and the results file was made with the defaults in force.
// A change that lowers a score fails here; one that raises it updates the file (`--write`).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  askAll,
  defaultSettings,
  loadDataset,
  RESULTS_PATH,
  type Scores,
  splitScores,
} from '../../bench/memory-recall.ts';
import { freshDatabase, type FreshDatabase } from '../helpers/databases.ts';

const committed = JSON.parse(readFileSync(RESULTS_PATH, 'utf8')) as {
  dataset: number;
  settings: unknown;
  tune: Scores;
  held: Scores;
};
const dataset = loadDataset();

let database: FreshDatabase;
beforeAll(async () => {
  database = await freshDatabase('pglite');
});
afterAll(() => database.dispose());

describe('the recall benchmark', () => {
  it('is a versioned set of at least 200 questions in English and Arabic, a third unanswerable, half held out', () => {
    const { questions } = dataset;
    expect(committed.dataset).toBe(dataset.version);
    expect(questions.length).toBeGreaterThanOrEqual(200);
    expect(new Set(questions.map((q) => q.lang))).toEqual(new Set(['en', 'ar']));
    const unanswerable = questions.filter((q) => q.expect.length === 0).length;
    expect(Math.abs(unanswerable / questions.length - 1 / 3)).toBeLessThan(0.02);
    const held = questions.filter((q) => q.split === 'held').length;
    expect(Math.abs(held / questions.length - 0.5)).toBeLessThan(0.05);
    const facts = new Set(dataset.facts.map((f) => f.id));
    expect(questions.flatMap((q) => q.expect).every((id) => facts.has(id))).toBe(true);
  });

  it('scores no lower than the committed results, with the defaults they were made with', {
    timeout: 120_000,
  }, async () => {
    expect(committed.settings).toEqual(defaultSettings());
    const scores = splitScores(await askAll(database.db, dataset), defaultSettings());
    for (const half of ['tune', 'held'] as const) {
      const [now, was] = [scores[half], committed[half]];
      expect(now.questions, half).toBe(was.questions);
      expect(now.precision, `${half} precision`).toBeGreaterThanOrEqual(was.precision - 1e-9);
      expect(now.recall, `${half} recall`).toBeGreaterThanOrEqual(was.recall - 1e-9);
      expect(now.injectedOnUnanswerable, `${half} injected on unanswerable`).toBeLessThanOrEqual(
        was.injectedOnUnanswerable + 1e-9,
      );
    }
  });
});

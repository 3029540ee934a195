// The recall benchmark (issue 39 §5): a versioned set of stored facts and questions, English and Arabic,
// a third of them with no stored answer (bench/memory-recall/dataset.v1.json), stored and searched as
// Kazma does (MemoryStore on PGlite, the deterministic fake embeddings of tests/fakes) and picked by
// recall's floor (selectRecalled). It prints, for the tuning half and the held-out half that tuning never
// sees: precision (injected notes that answer the question / all injected notes), recall (answerable
// questions whose note is injected) and the share of unanswerable questions that got any note injected.
// tests/memory/recall-benchmark.test.ts fails when a score falls below the committed results file.
//
//   node --import tsx bench/memory-recall.ts            # scores with memory.recall's defaults
//   node --import tsx bench/memory-recall.ts --tune     # the best thresholds on the tuning half only
//   node --import tsx bench/memory-recall.ts --write    # write bench/memory-recall/results.v1.json
//   node --import tsx bench/memory-recall.ts --latency 10000,100000 [--questions 50] [--only pglite|postgres]
//       recall p50/p95 for one owner with that many notes, beside a baseline read in the same run
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { memorySchema } from '../src/core/config/memory-schema.ts';
import { sql } from 'drizzle-orm';
import { type Db, schema } from '../src/core/db/index.ts';
import { MemoryStore, selectRecalled } from '../src/core/memory/index.ts';
import type { Candidate } from '../src/core/memory/store.ts';
import type { RecallSettings } from '../src/core/memory/recall.ts';
import { realArray } from '../src/core/memory/similarity.ts';
import { formsIn, textHash } from '../src/core/memory/words.ts';
import { fakeEmbedding } from '../tests/fakes/llm-embeddings.ts';
import { freshDatabase, type Backend } from '../tests/helpers/databases.ts';

const HERE = fileURLToPath(new URL('./memory-recall/', import.meta.url));
export const DATASET_PATH = join(HERE, 'dataset.v1.json');
export const RESULTS_PATH = join(HERE, 'results.v1.json');
const MODEL = 'fake-embed';

export interface Dataset {
  version: number;
  facts: { id: string; owner: string; text: string }[];
  questions: { q: string; lang: string; owner: string; expect: string[]; split: 'tune' | 'held' }[];
}

export interface Scores {
  questions: number;
  unanswerable: number;
  precision: number;
  recall: number;
  injectedOnUnanswerable: number;
}

export const loadDataset = (): Dataset => JSON.parse(readFileSync(DATASET_PATH, 'utf8')) as Dataset;

/** `memory.recall`'s defaults, as the schema gives them. */
export function defaultSettings(): RecallSettings {
  const r = memorySchema.parse({}).recall;
  return {
    minScore: r.min_score,
    maxGap: r.max_gap,
    maxNotes: r.max_notes,
    maxTokens: r.max_tokens,
    minBackground: r.min_background,
  };
}

/** One question's candidates, found once (they do not depend on the thresholds). */
interface Asked {
  question: Dataset['questions'][number];
  expect: Set<string>;
  candidates: Candidate[];
}

/** Stores the facts on `db` and finds every question's candidates, as recall does before a turn. */
export async function askAll(db: Db, dataset: Dataset): Promise<Asked[]> {
  const store = new MemoryStore({ db, clock: { now: () => new Date('2026-12-01T09:00:00Z') } });
  const ids = new Map<string, string>();
  for (const fact of dataset.facts) {
    const embedding = { model: MODEL, vector: fakeEmbedding(fact.text) };
    ids.set(fact.id, (await store.remember({ owner: fact.owner, text: fact.text, source: 'stated', embedding })).id);
  }
  // As a start does (assembly/recovery.ts): with pgvector, the HNSW index and its iterative scans.
  await store.prepareSearch();
  const asked: Asked[] = [];
  for (const question of dataset.questions) {
    const embedding = { model: MODEL, vector: fakeEmbedding(question.q) };
    const candidates = await store.candidates({ owners: [question.owner], query: question.q, embedding });
    asked.push({ question, expect: new Set(question.expect.map((id) => ids.get(id)!)), candidates });
  }
  return asked;
}

/** The scores of `asked` (one split) under `settings`. */
export function score(asked: readonly Asked[], settings: RecallSettings): Scores {
  let injected = 0;
  let right = 0;
  let found = 0;
  let answerable = 0;
  let leaked = 0;
  for (const a of asked) {
    const picked = selectRecalled(a.question.q, a.candidates, settings).map((n) => n.id);
    injected += picked.length;
    right += picked.filter((id) => a.expect.has(id)).length;
    if (a.expect.size === 0) leaked += picked.length > 0 ? 1 : 0;
    else {
      answerable++;
      if ([...a.expect].every((id) => picked.includes(id))) found++;
    }
  }
  const unanswerable = asked.length - answerable;
  return {
    questions: asked.length,
    unanswerable,
    precision: injected === 0 ? 1 : right / injected,
    recall: answerable === 0 ? 1 : found / answerable,
    injectedOnUnanswerable: unanswerable === 0 ? 0 : leaked / unanswerable,
  };
}

/** The tuning and held-out halves' scores. */
export function splitScores(asked: readonly Asked[], settings: RecallSettings): Record<'tune' | 'held', Scores> {
  return {
    tune: score(
      asked.filter((a) => a.question.split === 'tune'),
      settings,
    ),
    held: score(
      asked.filter((a) => a.question.split === 'held'),
      settings,
    ),
  };
}

/**
 * The best floor on the tuning half: fewest injections on unanswerable, then most recall, then precision;
 * among settings that score the same, the highest floor (then the smallest gap and background), the most
 * cautious on questions tuning never saw.
 */
function tune(asked: readonly Asked[], base: RecallSettings): RecallSettings {
  const tuning = asked.filter((a) => a.question.split === 'tune');
  let best = { settings: base, s: score(tuning, base) };
  const steps = (from: number, to: number, by: number) =>
    Array.from({ length: Math.round((to - from) / by) + 1 }, (_, i) => Math.round((from + i * by) * 100) / 100);
  for (const minScore of steps(0.2, 0.9, 0.05))
    for (const maxGap of steps(0.1, 0.6, 0.05))
      for (const minBackground of [0.1, 0.15, 0.2, 0.25, 0.3]) {
        const settings = { ...base, minScore, maxGap, minBackground };
        const s = score(tuning, settings);
        const better =
          s.injectedOnUnanswerable < best.s.injectedOnUnanswerable ||
          (s.injectedOnUnanswerable === best.s.injectedOnUnanswerable &&
            (s.recall > best.s.recall ||
              (s.recall === best.s.recall &&
                (s.precision > best.s.precision ||
                  (s.precision === best.s.precision && minScore > best.settings.minScore)))));
        if (better) best = { settings, s };
      }
  return best.settings;
}

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const line = (name: string, s: Scores) =>
  `${name.padEnd(5)} ${String(s.questions).padStart(4)} questions (${s.unanswerable} unanswerable): ` +
  `precision ${pct(s.precision)}, recall ${pct(s.recall)}, injected on unanswerable ${pct(s.injectedOnUnanswerable)}`;

/** `notes` notes for one owner, written in batches (as remember would write them, without its checks). */
async function seed(db: Db, owner: string, notes: number): Promise<void> {
  const words = loadDataset().facts.flatMap((f) => f.text.split(' '));
  const BATCH = 500;
  for (let from = 0; from < notes; from += BATCH) {
    const rows = Array.from({ length: Math.min(BATCH, notes - from) }, (_, k) => {
      const i = from + k;
      const picked = Array.from({ length: 8 }, (_, j) => words[(i * 7 + j * 13) % words.length]);
      const text = `note ${i}: ${picked.join(' ')}`;
      return {
        id: `mem_bench_${i}`,
        owner,
        text,
        textHash: textHash(text),
        terms: sql`to_tsvector('simple', ${[...formsIn(text)].join(' ')})`,
        source: 'stated' as const,
        embedding: sql`${realArray(fakeEmbedding(text))}::real[]`,
        embeddingModel: MODEL,
      };
    });
    await db.insert(schema.memories).values(rows);
  }
  // The planner's statistics, as autovacuum (PostgreSQL) or Kazma's upkeep (PGlite, db/pglite-upkeep.ts) keeps them.
  await db.execute(sql`analyze memories`);
}

const p = (times: number[], q: number) =>
  [...times].sort((a, b) => a - b)[Math.min(times.length - 1, Math.floor(q * times.length))]!;

/**
 * Recall's read for one owner holding `notes` notes (candidates by similarity and by full text, then the
 * floor), p50 and p95 in ms over `questions` questions; the baseline, measured in the same run on the same
 * database, is one indexed read of that owner (`hasNotes`, the cheapest statement a turn makes).
 */
async function latency(backend: Backend, notes: number, questions: number): Promise<string> {
  const database = await freshDatabase(backend);
  try {
    const store = new MemoryStore({ db: database.db, clock: { now: () => new Date() } });
    let started = performance.now();
    await seed(database.db, 'person:bench', notes);
    const seeded = performance.now() - started;
    started = performance.now();
    await store.prepareSearch();
    const indexed = performance.now() - started;
    const kind = await store.similarityKind();
    const times: number[] = [];
    const base: number[] = [];
    for (const q of loadDataset().questions.slice(0, questions)) {
      started = performance.now();
      await store.hasNotes(['person:bench']);
      base.push(performance.now() - started);
      started = performance.now();
      const embedding = { model: MODEL, vector: fakeEmbedding(q.q) };
      selectRecalled(
        q.q,
        await store.candidates({ owners: ['person:bench'], query: q.q, embedding }),
        defaultSettings(),
      );
      times.push(performance.now() - started);
    }
    const ms = (x: number) => `${x.toFixed(1)} ms`;
    const built = kind === 'pgvector' ? `, HNSW built in ${(indexed / 1000).toFixed(0)} s` : '';
    const ratio = (p(times, 0.95) / p(base, 0.95)).toFixed(0);
    return (
      `${backend} (${kind}) ${notes} notes, ${times.length} questions: recall p50 ${ms(p(times, 0.5))}, ` +
      `p95 ${ms(p(times, 0.95))}; baseline p95 ${ms(p(base, 0.95))} (×${ratio}); ` +
      `seeded in ${(seeded / 1000).toFixed(0)} s${built}`
    );
  } finally {
    await database.dispose();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      tune: { type: 'boolean' },
      write: { type: 'boolean' },
      latency: { type: 'string' },
      questions: { type: 'string', default: '50' },
      only: { type: 'string' },
    },
  });
  if (values.latency) {
    const backends = values.only ? [values.only as Backend] : (['pglite', 'postgres'] as const);
    for (const notes of values.latency.split(',').map(Number))
      for (const backend of backends) console.log(await latency(backend, notes, Number(values.questions)));
    return;
  }
  const dataset = loadDataset();
  const database = await freshDatabase('pglite');
  try {
    const asked = await askAll(database.db, dataset);
    const settings = values.tune ? tune(asked, defaultSettings()) : defaultSettings();
    const scores = splitScores(asked, settings);
    console.log(`dataset v${dataset.version}; settings ${JSON.stringify(settings)}`);
    console.log(line('tune', scores.tune));
    console.log(line('held', scores.held));
    if (values.write) {
      writeFileSync(RESULTS_PATH, `${JSON.stringify({ dataset: dataset.version, settings, ...scores }, null, 2)}\n`);
      console.log(`wrote ${RESULTS_PATH}`);
    }
  } finally {
    await database.dispose();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();

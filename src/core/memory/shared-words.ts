// The full-text half of recall: which of the owners' current notes share a content word with the question,
// best first. A word is matched as written (`search`) or by one of its forms (`terms`, forms.ts), through
// their GIN indexes (neither is partial: a note is never left out for how it was written).
//
// Ranking every note that shares a word does not scale: at 100,000 notes a common word matches thousands,
// each read and ranked (recall p95 31–116 ms on PostgreSQL with pgvector; 6–11 ms since), and ts_rank does
// not know a rare word from a common one, so a note by its one rare word lost to newer notes holding only the
// common word. So each word is looked up on its own, and at most RARE + 1 of its notes are read:
// - a word at most RARE of the owners' notes hold picks them out: every one of its notes is a candidate,
//   weighed by how rare the word is (inverse document frequency);
// - a word more notes hold says little about which note is meant: its notes are candidates only among
//   each owner's NEWEST newest notes (read newest first by the owner's index), as the old ranking, where
//   such notes tied, took the newest.
// Then the most rare-word weight first, then ts_rank over all the question's words, then the newest.
// The cost is bounded by the question's words, not by the owners' notes.
import { sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../db/index.ts';
import { formsOf } from './forms.ts';
import { contentWords } from './words.ts';

/** A word held by more of the owners' notes than this does not pick a note out. */
const RARE = 100;
/** How many of each owner's newest notes are searched for the common words. */
const NEWEST = 1_000;

/** An array literal PostgreSQL reads as `text[]` (drizzle would spread a JS array into a list of parameters). */
export function textArray(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;
}

interface Hit {
  /** The word's place in the question (1-based); 0: found among the newest notes. */
  g: number | string;
  id: string;
  seq: number | string;
  rank: number | null;
}

/** The ids of the current notes of `owners` sharing a content word with `query`, the best `limit` first. */
export async function notesSharingWords(
  db: Db,
  input: { owners: readonly string[]; query: string; limit: number },
): Promise<string[]> {
  const words = contentWords(input.query);
  if (words.length === 0) return [];
  const forms = words.map((w) => formsOf(w).join(' or '));
  const owners = sql`${textArray(input.owners)}::text[]`;
  const current = sql`forgotten_at is null and superseded_by is null`;
  const rank = (t: string) => sql.raw(`coalesce(ts_rank(${t}.terms, q.forms), ts_rank(${t}.search, q.written))`);
  // The word comes from the row of `w`, not a constant: the plan is the same for every word, the GIN
  // indexes read and the notes read only until RARE + 1 are found, however common the planner thinks it.
  // `q` (all the words, for the rank) is made once, also where a prepared statement's plan is generic.
  const hits = rowsOf<Hit>(
    await db.execute(sql`
      with q as materialized (
        select websearch_to_tsquery('simple', ${words.join(' or ')}) as written,
          websearch_to_tsquery('simple', ${[...new Set(words.flatMap(formsOf))].join(' or ')}) as forms
      )
      select w.g, m.id, m.seq, m.rank
      from q, unnest(${textArray(words)}::text[], ${textArray(forms)}::text[]) with ordinality as w(written, forms, g)
      cross join lateral (
        select id, seq, ${rank('memories')} as rank from memories
        where owner = any(${owners}) and ${current}
          and (search @@ websearch_to_tsquery('simple', w.written) or terms @@ websearch_to_tsquery('simple', w.forms))
        limit ${sql.raw(String(RARE + 1))}
      ) m
      union all
      select 0, n.id, n.seq, ${rank('n')}
      from q, unnest(${owners}) as o(owner)
      cross join lateral (
        select id, seq, search, terms from memories
        where owner = o.owner and ${current}
        order by seq desc limit ${sql.raw(String(NEWEST))}
      ) n
      where n.search @@ q.written or n.terms @@ q.forms`),
  );
  return best(hits, input.limit);
}

/** The hits of rare words and of the newest notes, by rare-word weight, then rank, then newest. */
function best(hits: readonly Hit[], limit: number): string[] {
  const held = new Map<number, number>();
  for (const h of hits) if (Number(h.g) > 0) held.set(Number(h.g), (held.get(Number(h.g)) ?? 0) + 1);
  const notes = new Map<string, { weight: number; rank: number; seq: number }>();
  for (const h of hits) {
    // undefined: found among the newest notes (g = 0), which counts no weight.
    const notesOfWord = held.get(Number(h.g));
    if (notesOfWord !== undefined && notesOfWord > RARE) continue;
    const note = notes.get(h.id) ?? { weight: 0, rank: Number(h.rank ?? 0), seq: Number(h.seq) };
    if (notesOfWord !== undefined) note.weight += Math.log((RARE + 1) / notesOfWord);
    notes.set(h.id, note);
  }
  return [...notes.entries()]
    .sort(([, a], [, b]) => b.weight - a.weight || b.rank - a.rank || b.seq - a.seq)
    .slice(0, limit)
    .map(([id]) => id);
}

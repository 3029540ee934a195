import { z } from 'zod';
import { duration } from './duration.ts';

/**
 * `memory` in kazma.yaml: what Kazma remembers and recalls (docs/configuration.md, docs/chat.md).
 * The recall thresholds' defaults are what `bench/memory-recall.ts --tune` picks on its tuning half
 * (bench/memory-recall/results.v1.json holds their scores; a test keeps them from falling).
 *
 * @example
 * memory:
 *   embeddings: { name: text-embedding-3-small, base_url: "https://api.openai.com/v1", api_key: "${KEY}" }
 *   recall: { min_score: 0.35 }
 */
export const memorySchema = z
  .strictObject({
    /** Off: no memory tools, nothing recalled (what is stored stays). */
    enabled: z.boolean().default(true),
    /**
     * The forget journal (memory/journal.ts): every forgetting, re-applied at start, so a restored backup
     * does not bring forgotten notes back. Empty: `<data_dir>/memory-forgotten.jsonl`.
     */
    forget_journal: z.string().default(''),
    embeddings: z
      .strictObject({
        /** The embedding model's name at the endpoint. */
        name: z.string().default('text-embedding-3-small'),
        /** An OpenAI-compatible endpoint; empty: `model.base_url` when `model.provider` is openai. */
        base_url: z.string().default(''),
        /** Its key; empty with an empty base_url: `model.api_key`. */
        api_key: z.string().default(''),
        timeout: duration('10s'),
      })
      .prefault({}),
    recall: z
      .strictObject({
        /** A note is recalled only when its score (lift over the background + word overlap) reaches this. */
        min_score: z.number().min(0).max(2).default(0.35),
        /** The least the background similarity is taken to be (with few notes there is none to measure). */
        min_background: z.number().min(0).max(1).default(0.1),
        /** Notes after a drop in score larger than this are left out, however high they are. */
        max_gap: z.number().min(0).max(2).default(0.1),
        /** At most this many notes per turn. */
        max_notes: z.number().int().min(0).max(50).default(6),
        /** At most this many approximate tokens (~4 characters each) of recalled notes per turn. */
        max_tokens: z.number().int().min(0).max(8_000).default(600),
      })
      .prefault({}),
  })
  .prefault({});

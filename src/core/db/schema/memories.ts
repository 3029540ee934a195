import { sql } from 'drizzle-orm';
import { bigserial, check, customType, index, pgTable, real, text, timestamp } from 'drizzle-orm/pg-core';

/** Where a memory came from, strongest first: a weaker source never overwrites a stronger one. */
export const MEMORY_SOURCES = ['stated', 'inferred', 'tool'] as const;
export type MemorySource = (typeof MEMORY_SOURCES)[number];

// PostgreSQL's text-search document; drizzle has no column type of its own for it.
const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

/**
 * What Kazma remembers, one row per note, per owner: `person:<operator>` (one person on every platform),
 * `user:<platform>:<id>` (someone who is not an operator) or `chat:<chat ref>` (a chat's shared notes).
 * `search` is the text's full-text document under the `simple` configuration: no language's stemming or
 * stop words, so Arabic and English words match as written. `embedding` is a plain `real[]` (with the
 * model that made it), so a PostgreSQL without pgvector stores and compares it too. A forgotten note is a
 * tombstone: its text and embedding are cleared, its `text_hash` stays, so the same words are not brought
 * back by anything but the person saying them again. `superseded_by` names the note that replaced it (or,
 * for a note about an older time written later, the newer one it stands behind).
 */
export const memories = pgTable(
  'memories',
  {
    id: text('id').primaryKey(),
    /** The order notes were written in (`created_at` comes from the clock, which a test may hold still). */
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    owner: text('owner').notNull(),
    text: text('text').notNull(),
    textHash: text('text_hash').notNull(),
    subject: text('subject'),
    source: text('source', { enum: MEMORY_SOURCES }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** When the fact became true, as stated ("since March"); null: when it was written (`created_at`). */
    validFrom: timestamp('valid_from', { withTimezone: true }),
    supersededBy: text('superseded_by'),
    /** A note from a stronger source this one disagrees with: both are kept and shown, never resolved silently. */
    conflictsWith: text('conflicts_with'),
    forgottenAt: timestamp('forgotten_at', { withTimezone: true }),
    embedding: real('embedding').array(),
    embeddingModel: text('embedding_model'),
    search: tsvector('search').generatedAlwaysAs(sql`to_tsvector('simple'::regconfig, "text")`),
    /**
     * The text's word forms (memory/forms.ts: normalised and lightly stemmed, Arabic and English), written
     * with the note; null on notes written before it existed, which `search` still finds by their words.
     */
    terms: tsvector('terms'),
  },
  (t) => [
    index('memories_owner_idx').on(t.owner, t.seq),
    index('memories_owner_hash_idx').on(t.owner, t.textHash),
    // No pending list (fastupdate): read before every turn, written a note at a time (migration 0034).
    index('memories_search_idx').using('gin', t.search).with({ fastupdate: false }),
    index('memories_terms_idx').using('gin', t.terms).with({ fastupdate: false }),
    check('memories_source_valid', sql`${t.source} in ('stated', 'inferred', 'tool')`),
  ],
);

/** A row of {@link memories} as read back. */
export type MemoryRow = typeof memories.$inferSelect;

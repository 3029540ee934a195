ALTER TABLE "memories" ADD COLUMN "terms" "tsvector";--> statement-breakpoint
CREATE INDEX "memories_terms_idx" ON "memories" USING gin ("terms");--> statement-breakpoint
-- pgvector again (as in 0023), for databases migrated before Kazma's PGlite loaded its `vector` extension:
-- created where the server has it and lets Kazma; the HNSW indexes are made in code, one per vector length
-- (src/core/memory/vector-index.ts). Without it nothing happens and memory's similarity search is exact.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') THEN
    BEGIN
      CREATE EXTENSION IF NOT EXISTS vector;
    EXCEPTION WHEN insufficient_privilege THEN
      RAISE NOTICE 'pgvector is available but cannot be created here: memory compares embeddings without it';
    END;
  END IF;
END $$;

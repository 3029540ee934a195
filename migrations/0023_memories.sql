CREATE TABLE "memories" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigserial NOT NULL,
	"owner" text NOT NULL,
	"text" text NOT NULL,
	"text_hash" text NOT NULL,
	"subject" text,
	"source" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"superseded_by" text,
	"forgotten_at" timestamp with time zone,
	"embedding" real[],
	"embedding_model" text,
	"search" "tsvector" GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, "text")) STORED,
	CONSTRAINT "memories_source_valid" CHECK ("memories"."source" in ('stated', 'inferred', 'tool'))
);
--> statement-breakpoint
CREATE INDEX "memories_owner_idx" ON "memories" USING btree ("owner","seq");--> statement-breakpoint
CREATE INDEX "memories_owner_hash_idx" ON "memories" USING btree ("owner","text_hash");--> statement-breakpoint
CREATE INDEX "memories_search_idx" ON "memories" USING gin ("search");--> statement-breakpoint
-- pgvector where the server has it and lets Kazma create it: similarity is then computed by pgvector over the
-- same real[] (cast to vector). Without it (Debian's PostgreSQL has no package) memory computes the exact
-- cosine in SQL: the migration never fails for want of the extension or of the right to create it.
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

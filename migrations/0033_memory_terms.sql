ALTER TABLE "memories" ADD COLUMN "terms" "tsvector";--> statement-breakpoint
CREATE INDEX "memories_terms_idx" ON "memories" USING gin ("terms");
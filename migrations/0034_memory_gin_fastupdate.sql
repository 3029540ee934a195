-- Memory's GIN indexes are read before every turn and written a note at a time. With fastupdate a new
-- note's words wait in a pending list that every read of the index goes through until a vacuum merges it
-- (10,000 notes written since the last one: ~2 ms a read of each index); without it a note's words go into
-- the index as it is written. The same indexes, so altered in place (drizzle-kit wrote a rebuild), and
-- what their pending lists hold merged now.
ALTER INDEX "memories_search_idx" SET (fastupdate = false);--> statement-breakpoint
ALTER INDEX "memories_terms_idx" SET (fastupdate = false);--> statement-breakpoint
SELECT gin_clean_pending_list('memories_search_idx'::regclass), gin_clean_pending_list('memories_terms_idx'::regclass);

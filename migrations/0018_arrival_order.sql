ALTER TABLE "inbox" ADD COLUMN "seq" bigserial NOT NULL;--> statement-breakpoint
ALTER TABLE "outbox" ADD COLUMN "seq" bigserial NOT NULL;
CREATE TABLE "inbox" (
	"platform" text NOT NULL,
	"event_id" text NOT NULL,
	"chat" text NOT NULL,
	"event" jsonb,
	"state" text DEFAULT 'received' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"owner" text,
	"last_error" text,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	CONSTRAINT "inbox_platform_event_pk" PRIMARY KEY("platform","event_id"),
	CONSTRAINT "inbox_state_valid" CHECK ("inbox"."state" in ('received','running','done','failed','refused'))
);
--> statement-breakpoint
CREATE INDEX "inbox_state_idx" ON "inbox" USING btree ("state","updated_at");--> statement-breakpoint
-- Events already taken in stay known, so a late redelivery is still dropped after the upgrade.
INSERT INTO "inbox" ("platform", "event_id", "chat", "state", "received_at", "updated_at", "finished_at")
SELECT "platform", "event_id", '', 'done', "received_at", "received_at", "received_at" FROM "processed_events"
ON CONFLICT DO NOTHING;

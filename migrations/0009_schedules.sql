CREATE TABLE "schedules" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"state" text DEFAULT 'scheduled' NOT NULL,
	"chat" text NOT NULL,
	"requester" jsonb NOT NULL,
	"text" text NOT NULL,
	"due_at" timestamp with time zone,
	"pattern" text,
	"zone" text NOT NULL,
	"words" text NOT NULL,
	"fires" integer DEFAULT 0 NOT NULL,
	"last_fired_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "schedules_kind_valid" CHECK ("schedules"."kind" in ('reminder','cron')),
	CONSTRAINT "schedules_state_valid" CHECK ("schedules"."state" in ('scheduled','fired','cancelled'))
);
--> statement-breakpoint
CREATE INDEX "schedules_chat_idx" ON "schedules" USING btree ("chat","state");--> statement-breakpoint
CREATE INDEX "schedules_due_idx" ON "schedules" USING btree ("state","due_at");
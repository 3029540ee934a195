CREATE TABLE "run_incidents" (
	"id" text PRIMARY KEY NOT NULL,
	"work_kind" text NOT NULL,
	"work_id" text NOT NULL,
	"problem" text NOT NULL,
	"since" timestamp with time zone NOT NULL,
	"detail" text NOT NULL,
	"chat" text,
	"state" text DEFAULT 'open' NOT NULL,
	"question_id" text,
	"decision" text,
	"opened_at" timestamp with time zone DEFAULT now() NOT NULL,
	"closed_at" timestamp with time zone,
	CONSTRAINT "run_incidents_state_valid" CHECK ("run_incidents"."state" in ('open','recovered','decided'))
);
--> statement-breakpoint
ALTER TABLE "inbox" ADD COLUMN "progress_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "retries" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "run_incidents_episode_uq" ON "run_incidents" USING btree ("work_kind","work_id","since");--> statement-breakpoint
CREATE UNIQUE INDEX "run_incidents_one_open_uq" ON "run_incidents" USING btree ("work_kind","work_id") WHERE "run_incidents"."state" = 'open';--> statement-breakpoint
CREATE INDEX "run_incidents_state_idx" ON "run_incidents" USING btree ("state");
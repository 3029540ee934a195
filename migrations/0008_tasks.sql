CREATE TABLE "tasks" (
	"id" text PRIMARY KEY NOT NULL,
	"goal" text NOT NULL,
	"state" text DEFAULT 'queued' NOT NULL,
	"thread_id" text NOT NULL,
	"origin_chat" text,
	"requester" jsonb NOT NULL,
	"parent_id" text,
	"result" text,
	"error" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"progress_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	CONSTRAINT "tasks_state_valid" CHECK ("tasks"."state" in ('queued','running','waiting_approval','done','failed','cancelled'))
);
--> statement-breakpoint
CREATE INDEX "tasks_chat_idx" ON "tasks" USING btree ("origin_chat","created_at");--> statement-breakpoint
CREATE INDEX "tasks_thread_idx" ON "tasks" USING btree ("thread_id");--> statement-breakpoint
CREATE INDEX "tasks_parent_idx" ON "tasks" USING btree ("parent_id");
CREATE TABLE "decision_questions" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"state" text DEFAULT 'open' NOT NULL,
	"chat" text,
	"title" text NOT NULL,
	"fields" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"options" jsonb NOT NULL,
	"subject" jsonb,
	"decision" text,
	"decided_by" jsonb,
	"decided_platform" text,
	"decided_at" timestamp with time zone,
	"closed_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "decision_questions_state_valid" CHECK ("decision_questions"."state" in ('open','decided','closed'))
);
--> statement-breakpoint
CREATE TABLE "question_audit" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"question_id" text NOT NULL,
	"actor" jsonb,
	"platform" text,
	"decision" text,
	"outcome" text NOT NULL,
	"detail" text,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "thread_leases" (
	"thread_id" text PRIMARY KEY NOT NULL,
	"owner" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "outbox" ADD COLUMN "owner_kind" text;--> statement-breakpoint
ALTER TABLE "outbox" ADD COLUMN "owner_id" text;--> statement-breakpoint
CREATE INDEX "decision_questions_kind_idx" ON "decision_questions" USING btree ("kind","state");--> statement-breakpoint
CREATE INDEX "question_audit_question_idx" ON "question_audit" USING btree ("question_id");--> statement-breakpoint
CREATE INDEX "outbox_owner_idx" ON "outbox" USING btree ("owner_kind","owner_id");--> statement-breakpoint
-- Every existing card and edit belongs to its gate: the owner columns replace gate_id.
UPDATE "outbox" SET "owner_kind" = 'gate', "owner_id" = "gate_id" WHERE "gate_id" IS NOT NULL;

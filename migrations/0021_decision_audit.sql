CREATE TABLE "decision_audit" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"subject_id" text NOT NULL,
	"actor" jsonb,
	"platform" text,
	"decision" text,
	"outcome" text NOT NULL,
	"detail" text,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "decision_audit_kind_valid" CHECK ("decision_audit"."kind" in ('gate','question'))
);
--> statement-breakpoint
CREATE INDEX "decision_audit_subject_idx" ON "decision_audit" USING btree ("kind","subject_id");--> statement-breakpoint
-- Every row of both old trails is kept, each subject's attempts in their old order (the new ids follow the old).
INSERT INTO "decision_audit" ("kind", "subject_id", "actor", "platform", "decision", "outcome", "detail", "at")
SELECT 'gate', "gate_id", "actor", "platform", "decision", "outcome", "detail", "at" FROM "approval_audit" ORDER BY "id";--> statement-breakpoint
INSERT INTO "decision_audit" ("kind", "subject_id", "actor", "platform", "decision", "outcome", "detail", "at")
SELECT 'question', "question_id", "actor", "platform", "decision", "outcome", "detail", "at" FROM "question_audit" ORDER BY "id";--> statement-breakpoint
DROP TABLE "approval_audit" CASCADE;--> statement-breakpoint
DROP TABLE "question_audit" CASCADE;

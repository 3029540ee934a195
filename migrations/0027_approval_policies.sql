ALTER TABLE "approval_gates" ADD COLUMN "policy" jsonb;--> statement-breakpoint
ALTER TABLE "approval_gates" ADD COLUMN "approvals" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "approval_gates" ADD COLUMN "escalated_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "approval_grants" ADD COLUMN "approvals" integer DEFAULT 1 NOT NULL;
CREATE TABLE "approval_audit" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"gate_id" text NOT NULL,
	"actor" jsonb,
	"platform" text,
	"decision" text,
	"outcome" text NOT NULL,
	"detail" text,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "approval_gates" (
	"id" text PRIMARY KEY NOT NULL,
	"interrupt_id" text NOT NULL,
	"thread_id" text NOT NULL,
	"call_id" text NOT NULL,
	"origin_chat" text,
	"requester" jsonb,
	"tool" text NOT NULL,
	"args" jsonb NOT NULL,
	"args_hash" text NOT NULL,
	"tier" text,
	"reason" text,
	"state" text DEFAULT 'pending' NOT NULL,
	"decision" text,
	"deny_reason" text,
	"decided_by" jsonb,
	"decided_platform" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"claimed_at" timestamp with time zone,
	"settled_at" timestamp with time zone,
	"expires_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"error" text,
	CONSTRAINT "approval_gates_state_valid" CHECK ("approval_gates"."state" in ('pending','claimed','resuming','settled','timeout','superseded','error'))
);
--> statement-breakpoint
CREATE TABLE "approval_grants" (
	"id" text PRIMARY KEY NOT NULL,
	"chat" text NOT NULL,
	"tool" text NOT NULL,
	"pattern" text,
	"granted_by" jsonb,
	"gate_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "outbox" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"destination" text NOT NULL,
	"gate_id" text,
	"target_id" text,
	"payload" jsonb NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"message_ref" jsonb,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone,
	CONSTRAINT "outbox_state_valid" CHECK ("outbox"."state" in ('pending','sending','sent','unknown','failed'))
);
--> statement-breakpoint
CREATE INDEX "approval_audit_gate_idx" ON "approval_audit" USING btree ("gate_id");--> statement-breakpoint
CREATE INDEX "approval_gates_state_idx" ON "approval_gates" USING btree ("state","expires_at");--> statement-breakpoint
CREATE INDEX "approval_gates_thread_idx" ON "approval_gates" USING btree ("thread_id");--> statement-breakpoint
CREATE INDEX "approval_grants_chat_idx" ON "approval_grants" USING btree ("chat","tool");--> statement-breakpoint
CREATE INDEX "outbox_state_idx" ON "outbox" USING btree ("state");--> statement-breakpoint
CREATE INDEX "outbox_gate_idx" ON "outbox" USING btree ("gate_id");
CREATE TABLE "ui_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"operator" text,
	"token_digest" text NOT NULL,
	"read_only" boolean NOT NULL,
	"csrf" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "ui_sessions_expires_idx" ON "ui_sessions" USING btree ("expires_at");
CREATE TABLE "paired_users" (
	"user_ref" text PRIMARY KEY NOT NULL,
	"display_name" text,
	"paired_by" text NOT NULL,
	"paired_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "pairing_codes" (
	"code" text PRIMARY KEY NOT NULL,
	"user_ref" text NOT NULL,
	"display_name" text,
	"chat" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX "pairing_codes_live_idx" ON "pairing_codes" USING btree ("user_ref") WHERE "pairing_codes"."used_at" is null;--> statement-breakpoint
CREATE INDEX "pairing_codes_expires_idx" ON "pairing_codes" USING btree ("expires_at");
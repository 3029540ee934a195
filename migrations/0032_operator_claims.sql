CREATE TABLE "operator_claims" (
	"code" text PRIMARY KEY NOT NULL,
	"operator" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"claimed_by" text,
	"claimed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "operator_claims_claimed_by_idx" ON "operator_claims" USING btree ("claimed_by");
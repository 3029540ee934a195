CREATE TABLE "media_transcripts" (
	"key" text PRIMARY KEY NOT NULL,
	"text" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "media_transcripts_created_idx" ON "media_transcripts" USING btree ("created_at");
CREATE TABLE "media_files" (
	"key" text PRIMARY KEY NOT NULL,
	"sha256" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "media_files_created_idx" ON "media_files" USING btree ("created_at");
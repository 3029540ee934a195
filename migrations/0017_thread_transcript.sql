CREATE TABLE "thread_transcript" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"thread_id" text NOT NULL,
	"message_id" text NOT NULL,
	"message" jsonb NOT NULL,
	"reason" text NOT NULL,
	"archived_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "thread_transcript_reason_valid" CHECK ("thread_transcript"."reason" in ('window', 'compact'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "thread_transcript_thread_message_uq" ON "thread_transcript" USING btree ("thread_id","message_id");--> statement-breakpoint
CREATE INDEX "thread_transcript_thread_seq_idx" ON "thread_transcript" USING btree ("thread_id","seq");
CREATE TABLE "effect_receipts" (
	"thread_id" text NOT NULL,
	"call_id" text NOT NULL,
	"turn_id" text,
	"tool" text NOT NULL,
	"args_hash" text NOT NULL,
	"state" text DEFAULT 'started' NOT NULL,
	"result" jsonb,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	CONSTRAINT "effect_receipts_thread_call_pk" PRIMARY KEY("thread_id","call_id"),
	CONSTRAINT "effect_receipts_state_valid" CHECK ("effect_receipts"."state" in ('started', 'finished')),
	CONSTRAINT "effect_receipts_finished_has_result" CHECK (("effect_receipts"."state" = 'finished') = ("effect_receipts"."result" is not null and "effect_receipts"."finished_at" is not null))
);

CREATE TABLE "command_effects" (
	"event_key" text NOT NULL,
	"command" text NOT NULL,
	"result" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "command_effects_event_command_pk" PRIMARY KEY("event_key","command")
);

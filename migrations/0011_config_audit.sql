CREATE TABLE "config_audit" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"actor" jsonb NOT NULL,
	"chat" text NOT NULL,
	"command" text NOT NULL,
	"outcome" text NOT NULL,
	"detail" text,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);

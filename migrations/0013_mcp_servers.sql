CREATE TABLE "mcp_servers" (
	"name" text PRIMARY KEY NOT NULL,
	"state" text NOT NULL,
	"last_error" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_retry_at" timestamp with time zone,
	"tool_count" integer DEFAULT 0 NOT NULL,
	"progress_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
CREATE TABLE "welcomed_people" (
	"user_ref" text PRIMARY KEY NOT NULL,
	"welcomed_at" timestamp with time zone NOT NULL
);

ALTER TABLE "decision_questions" ADD COLUMN "effect" text;--> statement-breakpoint
CREATE INDEX "decision_questions_effect_owed_idx" ON "decision_questions" USING btree ("updated_at") WHERE "decision_questions"."effect" = 'owed';--> statement-breakpoint
ALTER TABLE "decision_questions" ADD CONSTRAINT "decision_questions_effect_valid" CHECK ("decision_questions"."effect" in ('owed','done'));
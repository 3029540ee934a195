DROP INDEX "decision_audit_subject_idx";--> statement-breakpoint
ALTER TABLE "decision_audit" ADD COLUMN "event_key" text;--> statement-breakpoint
CREATE UNIQUE INDEX "decision_audit_event_idx" ON "decision_audit" USING btree ("kind","subject_id","event_key");

ALTER TABLE "outbox" DROP CONSTRAINT "outbox_state_valid";--> statement-breakpoint
CREATE INDEX "outbox_target_idx" ON "outbox" USING btree ("target_id");--> statement-breakpoint
ALTER TABLE "outbox" ADD CONSTRAINT "outbox_state_valid" CHECK ("outbox"."state" in ('pending','sending','sent','unknown','failed','superseded'));
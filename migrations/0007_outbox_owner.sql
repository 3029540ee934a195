DROP INDEX "outbox_gate_idx";--> statement-breakpoint
ALTER TABLE "outbox" DROP COLUMN "gate_id";
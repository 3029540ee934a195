export { enqueueOutbox, getOutbox, moveOutbox, openOutbox, outboxId, outboxOfGate, recoverOutbox, type OutboxItem, type OutboxRow } from './store.ts';
export { deliverOutbox, EditTargetNotReadyError, type DeliveryOutcome } from './deliver.ts';
export type { OutboxDispatcher } from './port.ts';

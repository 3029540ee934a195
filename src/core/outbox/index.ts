export { enqueueOutbox, getOutbox, moveOutbox, openOutbox, outboxId, outboxOfOwner, recoverOutbox, type OutboxItem, type OutboxOwner, type OutboxRow } from './store.ts';
export { deliverOutbox, EditTargetNotReadyError, type DeliveryOutcome } from './deliver.ts';
export type { OutboxDispatcher } from './port.ts';

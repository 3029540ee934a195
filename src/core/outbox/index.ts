export { enqueueOutbox, getOutbox, moveOutbox, openOutbox, outboxOfOwner } from './store.ts';
export type { OutboxDispatcher } from './port.ts';

/**
 * How the core asks for outbox rows to be delivered, implemented by src/jobs (BullMQ) and by an
 * in-process dispatcher in tests. Called after the transaction that wrote the rows has committed.
 */
export interface OutboxDispatcher {
  dispatch(ids: string[]): Promise<void>;
}

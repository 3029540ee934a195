export { enqueueOutbox, getOutbox, moveOutbox, openOutbox, outboxOfOwner } from './store.ts';
export type { OutboxDispatcher } from './port.ts';
export { JobOutboxDispatcher, outboxDeliveryJob } from './jobs.ts';
export { editOwnedCards, postOwnedCards, proveTappedCard } from './owned-cards.ts';
export { ReplyOutbox, type DraftFor, type Reply } from './replies.ts';
export { recordSent, sentMarksParam, sentMarksUpdate, type SentHandOff, type SentReply } from './sent-marks.ts';
export { DraftRecords } from './drafts.ts';

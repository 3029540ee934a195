// The public face of core/turns.
export { ChatLeaseStatements } from './chat-lease-statements.ts';
export { LOCAL_LEASES, type ChatLeases, type TakeRequest } from './chat-leases.ts';
export { AheadLease } from './leases-ahead.ts';
export { readUnfinishedTaking, runningBy, takeParams, takeUpdate, unfinishedTaking } from './inbox-take.ts';
export { rowEndParams, rowEndUpdate, type RowEnd } from './row-end.ts';
export { ThreadLeases, type LeaseHandOff, type ThreadLease } from './thread-lease.ts';
export { ThreadStore } from './threads.ts';
export { TurnInterruptedError } from './turn-interrupted.ts';

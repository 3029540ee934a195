// The public face of core/chat: the Surface port and the inbound pipeline.
export { ChatQueues } from './queue/chat-queue.ts';
export { Inbox, InboxUnavailableError } from './inbox/inbox.ts';
export { RefusalLimiter } from './intake/refusals.ts';
export { AccessPolicy, LOCAL_OPERATOR } from './intake/access.ts';
export { InboundPipeline } from './intake/pipeline.ts';
export type { Accepted, PipelineOutcome } from './intake/pipeline-types.ts';
export { InFlight } from './intake/in-flight.ts';
export type { PlatformCoreLink } from './intake/core-link.ts';
export type { InboxKey, InboxRow } from './inbox/inbox.ts';
export type { Role } from './intake/access.ts';
export { TypingRefresher } from './intake/typing-refresher.ts';

// The public face of core/chat: the Surface port and the inbound pipeline.
export { chatOf, formatChatRef, InvalidChatRefError, isChatRef, parseChatRef, type ChatRef, type ChatRefParts } from './ref.ts';
export type { Actor, Card, CardButton, InboundAction, InboundCommand, InboundEvent, InboundMessage, Message, MessageRef, Surface } from './types.ts';
export { DuplicateSurfaceError, NoSurfaceError, SurfaceRegistry } from './surfaces.ts';
export { ChatQueues } from './chat-queue.ts';
export { Inbox, InboxUnavailableError, inboxKey, turnIdOf, type InboxKey, type InboxRow } from './inbox.ts';
export { InvalidInboundEventError, parseInboundEvent } from './event-schema.ts';
export { RefusalLimiter, type RefusalLimiterOptions } from './refusals.ts';
export { AccessPolicy, LOCAL_OPERATOR, type AccessVerdict, type Role } from './access.ts';
export { InboundPipeline, type Accepted, type PipelineOptions, type PipelineOutcome } from './pipeline.ts';
export { InFlight } from './in-flight.ts';
export type { PlatformCoreLink } from './core-link.ts';

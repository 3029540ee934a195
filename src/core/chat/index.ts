// The public face of core/chat: the Surface port and the inbound pipeline.
export { chatOf, formatChatRef, InvalidChatRefError, isChatRef, parseChatRef, type ChatRef } from './ref.ts';
export type { Actor, Card, CardButton, InboundAction, InboundCommand, InboundEvent, InboundMessage, Message, MessageRef, SendProgress, Surface } from './types.ts';
export { sendInParts } from './send-parts.ts';
export { SurfaceRegistry } from './surfaces.ts';
export { ChatQueues } from './chat-queue.ts';
export { Inbox, InboxUnavailableError } from './inbox.ts';
export { InvalidInboundEventError } from './event-schema.ts';
export { RefusalLimiter } from './refusals.ts';
export { AccessPolicy, LOCAL_OPERATOR } from './access.ts';
export { InboundPipeline } from './pipeline.ts';
export type { Accepted, PipelineOutcome } from './pipeline-types.ts';
export { InFlight } from './in-flight.ts';
export type { PlatformCoreLink } from './core-link.ts';

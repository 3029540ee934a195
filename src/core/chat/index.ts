// The public face of core/chat: the Surface port and the inbound pipeline.
export { chatOf, formatChatRef, InvalidChatRefError, isChatRef, parseChatRef, type ChatRef } from '../surface/ref.ts';
export type { Actor, Card, CardButton, InboundAction, InboundCommand, InboundEvent, InboundMessage, Message, MessageRef, SendProgress, Surface } from '../surface/types.ts';
export { sendInParts } from '../surface/send-parts.ts';
export { SurfaceRegistry } from '../surface/surfaces.ts';
export { ChatQueues } from './queue/chat-queue.ts';
export { Inbox, InboxUnavailableError } from './inbox/inbox.ts';
export { InvalidInboundEventError } from '../surface/event-schema.ts';
export { RefusalLimiter } from './intake/refusals.ts';
export { AccessPolicy, LOCAL_OPERATOR } from './intake/access.ts';
export { InboundPipeline } from './intake/pipeline.ts';
export type { Accepted, PipelineOutcome } from './intake/pipeline-types.ts';
export { InFlight } from './intake/in-flight.ts';
export type { PlatformCoreLink } from './intake/core-link.ts';

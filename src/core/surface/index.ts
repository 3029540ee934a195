// The public face of core/surface.
export { InvalidInboundEventError, parseInboundEvent } from './event-schema.ts';
export { splitFenced } from './fence-split.ts';
export { lexMarkdown, renderMarkdown, tableText, type MarkdownDialect } from './markdown.ts';
export {
  CHAT_PLATFORMS,
  CHAT_PLATFORM_IDS,
  CONSOLE,
  PLATFORM_IDS,
  isPlatform,
  platformLabel,
  type ChatPlatform,
  type Platform,
} from './platforms.ts';
export { InvalidChatRefError, chatOf, formatChatRef, isChatRef, parseChatRef, type ChatRef } from './ref.ts';
export { closePartial } from './partial.ts';
export { deliveryKey, sendInParts, showInParts, type PartPost } from './send-parts.ts';
export { SurfaceRegistry } from './surfaces.ts';
export { isPhotoName, outboundBytes } from './outbound-file.ts';
export { TextCutter, clipText, ellipsis } from './text-split.ts';
export type {
  Actor,
  Attachment,
  AttachmentDownload,
  Card,
  CardButton,
  CardPost,
  CardField,
  InboundAction,
  InboundCommand,
  InboundEvent,
  InboundMessage,
  Message,
  MessageRef,
  OutboundFile,
  PartialAnswer,
  PrivateReplyOptions,
  Surface,
} from './types.ts';
export type { SendProgress } from './send-progress.ts';
export { visibleCard, visibleJson, visibleLine, visibleText } from './visible.ts';
export { fitCard } from './fit-card.ts';
export { REASON_FORM, REASON_MAX, reasonButtonId, reasonButtonTarget } from './reason-button.ts';

// The public face of core/streaming: answers shown while the model writes them.
export { LiveReplies } from './live-replies.ts';
export { LiveReply } from './live-reply.ts';
export { ANSWER_TAG, TokenTap } from './token-tap.ts';
export { TOOL_STARTED, toolProgressLine, type ToolStarted } from './progress-line.ts';

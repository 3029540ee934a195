// The public face of core/streaming: answers shown while the model writes them.
export { INTERRUPTED_TEXT, LiveReplies } from './live-replies.ts';
export { LiveReply } from './live-reply.ts';
export { toolProgressLine } from './progress-line.ts';
export { LIVE_REPLY_KEY, liveCallConfig, liveReplyOf } from './token-tap.ts';

// The public face of core/commitment.
export { sendMessageTool } from './send-message.ts';

import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { ChatRef } from '../surface/index.ts';
import type { ReplyOutbox } from '../outbox/index.ts';
import { defineTool } from '../tools/index.ts';
import { maskText } from '../secrets/index.ts';

/** The tool's name; the commitment check decides its target. */
export const SEND_MESSAGE = 'send_message';

/**
 * `send_message` (write: asks first; effects): posts `text` to another chat, on any platform, by
 * ChatRef or by an alias from `outbound.targets`. By the time `run` sees the call, the commitment
 * check has resolved the alias (the card said so) or asked which target was meant, so `to` is a chat.
 * The post is an outbox row written before the send; the effect journal keeps it to one per call.
 */
export function sendMessageTool(options: { replies: ReplyOutbox; aliases: readonly string[] }) {
  const aliases = options.aliases.length > 0 ? ` Known aliases: ${options.aliases.join(', ')}.` : '';
  return defineTool({
    name: SEND_MESSAGE,
    description:
      `Post a message to another chat: "to" is a chat such as "slack:C0123" or "telegram:-100123", or a ` +
      `configured alias.${aliases} A person approves each message.`,
    input: z.object({
      to: z.string().min(1).max(200).describe('Chat ref (platform:chat[:thread]) or alias'),
      text: z.string().min(1).max(4000).describe('The message to post'),
    }),
    tier: 'write',
    effects: true,
    outside: false,
    async run({ to, text }, ctx) {
      await postOnce(options.replies, to as ChatRef, maskText(text, ctx.secrets), `send_${randomUUID()}`);
      return `posted to ${to}`;
    },
  });
}

/** Posts through the outbox under `key`: a second call with the same key finds the row and sends nothing new. */
export async function postOnce(replies: ReplyOutbox, chat: ChatRef, text: string, key: string): Promise<void> {
  await replies.deliver(chat, [{ key, text }]);
}

// A required deny reason on Telegram: the denier gets a force-reply prompt naming the gate, and their reply to it
// comes back as `/deny <gate> <reason>` — the text fallback every platform has, so the reason reaches the model.
import type { Api } from 'grammy';

const PROMPT = 'Why deny? Reply to this message with the reason';
const GATE = /^Why deny\? Reply to this message with the reason \(gate ([A-Za-z0-9_-]{1,32})\)\.$/;

/** Sends the force-reply prompt for `gateId` in the chat the Deny was tapped in. */
export async function askDenyReason(
  api: Api,
  target: { chatId: number | string; threadId?: number | undefined },
  gateId: string,
): Promise<void> {
  await api.sendMessage(target.chatId, `${PROMPT} (gate ${gateId}).`, {
    ...(target.threadId !== undefined && { message_thread_id: target.threadId }),
    reply_markup: { force_reply: true, selective: true, input_field_placeholder: 'Why deny?' },
  });
}

/**
 * A message replying to the bot's own prompt is the reason for that gate: its text as `/deny <gate> <reason>`.
 * Only a prompt the bot wrote counts (`from` is the bot): nobody else can make a message that reads as one.
 */
export function asDenyReason(
  text: string,
  replyTo: { from?: { id: number } | undefined; text?: string | undefined } | undefined,
  botId: number,
): string {
  if (replyTo?.from?.id !== botId || !replyTo.text) return text;
  const gate = GATE.exec(replyTo.text)?.[1];
  return gate && text.trim() ? `/deny ${gate} ${text.trim()}` : text;
}

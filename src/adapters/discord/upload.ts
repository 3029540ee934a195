// A file Kazma sends on Discord (send_file): one message with the file attached (multipart, through the
// REST client's own request function: rest-request.ts) and the text as its content, under the delivery's
// nonce with enforce_nonce — a retry of an upload Discord did take returns that message, never a second.
import { randomBytes } from 'node:crypto';
import { type APIMessage, type REST, Routes } from 'discord.js';
import { type Message, type OutboundFile, outboundBytes } from '../../core/surface/index.ts';
import { discordError } from './errors.ts';
import { discordChunks } from './format.ts';

/** What a bot may attach to one message (Discord's limit without a server boost). */
export const DISCORD_FILE_LIMIT = 10 * 1024 * 1024;

/** Posts `message.file` in `channelId`; its text as the content (its first 2000 characters; the rest after). */
export async function postDiscordFile(
  rest: REST,
  api: string,
  channelId: string,
  message: Message & { file: OutboundFile },
  nonce?: string,
): Promise<{ id: string; rest: string[] }> {
  const { file } = message;
  if (file.size > DISCORD_FILE_LIMIT) throw new Error(`"${file.name}" is over Discord's 10 MB for a bot's upload`);
  const data = await outboundBytes(file);
  const [content = '', ...more] = discordChunks(message.text);
  const body = {
    content,
    allowed_mentions: { parse: [] },
    nonce: nonce || randomBytes(12).toString('base64url').slice(0, 25),
    enforce_nonce: true,
    attachments: [{ id: 0, filename: file.name }],
  };
  try {
    const sent = (await rest.post(Routes.channelMessages(channelId), {
      body,
      files: [{ name: file.name, data }],
    })) as APIMessage;
    return { id: sent.id, rest: more };
  } catch (error) {
    throw discordError('POST /channels/:id/messages', error, api);
  }
}

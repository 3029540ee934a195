// A file Kazma sends on Telegram (send_file): sendPhoto for a JPEG, PNG or WebP within Telegram's 10 MB
// for photos, sendDocument for anything else up to the Bot API's 50 MB for a bot's upload; the text is
// the caption (at most 1024 characters: a longer one goes as a message after the file).
import type { Api } from 'grammy';
import { InputFile } from 'grammy';
import {
  type ChatRef,
  isPhotoName,
  type Message,
  type MessageRef,
  type OutboundFile,
  outboundBytes,
} from '../../core/surface/index.ts';
import { telegramError } from './errors.ts';
import { messageRefOf, type TelegramTarget } from './ids.ts';

/** The Bot API's limit for a file a bot uploads. */
export const TELEGRAM_FILE_LIMIT = 50 * 1024 * 1024;
const PHOTO_LIMIT = 10 * 1024 * 1024;
const CAPTION_LIMIT = 1024;

/** Uploads `message.file` with its caption; `more` sends a caption too long for one. */
export async function sendTelegramFile(
  api: Api,
  apiRoot: string,
  chat: ChatRef,
  target: TelegramTarget,
  message: Message & { file: OutboundFile },
  more: (text: string) => Promise<unknown>,
): Promise<MessageRef> {
  const { file } = message;
  if (file.size > TELEGRAM_FILE_LIMIT) throw new Error(`"${file.name}" is over Telegram's 50 MB for a bot's upload`);
  const input = new InputFile(await outboundBytes(file), file.name);
  const caption = [...message.text].length <= CAPTION_LIMIT ? message.text : '';
  const extra = {
    ...(target.threadId !== undefined && { message_thread_id: target.threadId }),
    ...(caption !== '' && { caption }),
  };
  const photo = isPhotoName(file.name) && file.size <= PHOTO_LIMIT;
  let sent: { message_id: number };
  try {
    sent = photo
      ? await api.sendPhoto(target.chatId, input, extra)
      : await api.sendDocument(target.chatId, input, extra);
  } catch (error) {
    throw telegramError(photo ? 'sendPhoto' : 'sendDocument', error, apiRoot);
  }
  if (caption === '' && message.text.trim() !== '') await more(message.text);
  return messageRefOf(chat, sent.message_id);
}

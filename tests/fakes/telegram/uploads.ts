// sendDocument and sendPhoto as the Bot API takes a bot's upload: multipart/form-data with the file as a
// part (a string there is a file_id or URL, which this fake does not resolve), a caption of at most 1024
// characters, 50 MB for a document and 10 MB for a photo. The message is stored with its caption as its
// text, and the bytes kept so a test compares what arrived.
import { chatIdOf, optInt, optStr, type Params } from './body.ts';
import type { FakeState, Outcome } from './methods.ts';
import { badRequest, TelegramApiError } from './wire.ts';

const LIMITS = { sendDocument: 50 * 1024 * 1024, sendPhoto: 10 * 1024 * 1024 } as const;

function upload(method: keyof typeof LIMITS, field: string) {
  return async (s: FakeState, p: Params): Promise<Outcome> => {
    const chatId = chatIdOf(p);
    s.store.chat(chatId);
    const file = p[field];
    if (typeof file === 'string')
      throw badRequest('wrong remote file identifier specified: fake-telegram takes uploads only');
    if (!(file instanceof File)) throw badRequest(`there is no ${field} in the request`);
    if (file.size > LIMITS[method]) throw new TelegramApiError(413, 'Request Entity Too Large');
    const caption = optStr(p, 'caption');
    if (caption !== undefined && [...caption].length > 1024) throw badRequest('message caption is too long');
    const sent = s.store.addBotMessage(
      chatId,
      { text: caption ?? '', raw_text: caption ?? '', entities: [], at: Date.now() },
      optInt(p, 'message_thread_id'),
    );
    s.files.uploads.push({
      method,
      chatId,
      messageId: sent.message_id,
      name: file.name,
      bytes: Buffer.from(await file.arrayBuffer()),
      ...(caption !== undefined && { caption }),
    });
    const described = {
      file_id: `BQACAgIAAxkBAAI${sent.message_id}up`,
      file_unique_id: `up${sent.message_id}`,
      file_size: file.size,
    };
    return {
      result: {
        ...sent,
        ...(method === 'sendPhoto'
          ? { photo: [{ ...described, width: 90, height: 90 }] }
          : { document: { ...described, file_name: file.name } }),
      },
    };
  };
}

export const UPLOAD_METHODS = {
  sendDocument: upload('sendDocument', 'document'),
  sendPhoto: upload('sendPhoto', 'photo'),
};

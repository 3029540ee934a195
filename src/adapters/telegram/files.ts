// Files sent to the bot: a photo or a document becomes an Attachment holding its file_id (never the bytes,
// so the inbox row stays small), and is opened when its turn runs: getFile names the file's path, and the
// bytes come from `<api_root>/file/bot<token>/<path>`. That URL carries the token, so it never leaves here.
import type { Api } from 'grammy';
import type { Message } from 'grammy/types';
import type { Attachment, AttachmentDownload } from '../../core/surface/index.ts';
import { telegramError } from './errors.ts';

/**
 * The files of a message: a photo's largest size (Telegram lists them smallest first and has already
 * compressed it), a voice note, an audio file or a round video note (heard), or a document — an image
 * sent "as a file" is an image, an audio file sent so is heard.
 */
export function attachmentsOf(message: Message): Attachment[] {
  const photo = message.photo?.at(-1);
  if (photo) {
    return [{ kind: 'image', ref: photo.file_id, mime: 'image/jpeg', ...sizeOf(photo.file_size) }];
  }
  const voice = message.voice ?? message.audio ?? message.video_note;
  if (voice) {
    const name = message.audio?.file_name;
    const mime = 'mime_type' in voice ? voice.mime_type : 'video/mp4'; // a video note is always MPEG-4
    return [
      {
        kind: 'audio',
        ref: voice.file_id,
        ...(name !== undefined && { name }),
        ...(mime !== undefined && { mime }),
        ...sizeOf(voice.file_size),
      },
    ];
  }
  const doc = message.document;
  if (!doc) return [];
  const mime = doc.mime_type;
  return [
    {
      kind: mime?.startsWith('image/') ? 'image' : mime?.startsWith('audio/') ? 'audio' : 'document',
      ref: doc.file_id,
      ...(doc.file_name !== undefined && { name: doc.file_name }),
      ...(mime !== undefined && { mime }),
      ...sizeOf(doc.file_size),
    },
  ];
}

const sizeOf = (size: number | undefined) => (size === undefined ? {} : { size });

/** Opens an attachment: getFile, then the download, its declared size taken from either. */
export async function openTelegramFile(
  api: Api,
  apiRoot: string,
  attachment: Attachment,
  signal: AbortSignal,
): Promise<AttachmentDownload> {
  let file: Awaited<ReturnType<Api['getFile']>>;
  try {
    file = await api.getFile(attachment.ref, signal as Parameters<Api['getFile']>[1]);
  } catch (error) {
    throw telegramError('getFile', error, apiRoot);
  }
  if (!file.file_path) throw new Error('Telegram gave no path for the file (it may have expired); send it again');
  const url = `${apiRoot.replace(/\/+$/, '')}/file/bot${api.token}/${file.file_path}`;
  const response = await fetch(url, { signal }).catch((error: unknown) => {
    if (signal.aborted) throw error;
    // The URL holds the token: the error names the cause only.
    throw new Error(`Telegram's file download failed (${(error as Error).cause ?? (error as Error).message})`);
  });
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    // The URL holds the token: the error names the status only.
    throw new Error(`Telegram's file download answered HTTP ${response.status}`);
  }
  const length = Number(response.headers.get('content-length') ?? Number.NaN);
  const size = Number.isFinite(length) ? length : file.file_size;
  return { body: response.body, ...(size !== undefined && { size }) };
}

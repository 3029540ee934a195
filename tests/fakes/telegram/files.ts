// Files users send, as the Bot API serves them to a bot: a photo (several sizes, smallest first) or a
// document arrives as a message with `file_id`s; `getFile` answers the file's size and path, and the bytes
// are downloaded from `/file/bot<token>/<file_path>`. Like Telegram, getFile refuses a file over 20 MB.
import type { FakeState } from './methods.ts';
import { chatFor, fullUser, type UserInput } from './inbound.ts';
import { badRequest, type TgMessage, type TgUpdate, unixNow } from './wire.ts';

/** Telegram's limit for a bot's download (getFile answers "file is too big" above it). */
export const BOT_DOWNLOAD_LIMIT = 20 * 1024 * 1024;

interface StoredFile {
  id: string;
  uniqueId: string;
  path: string;
  bytes: Uint8Array;
  /** The size Telegram declares (file_size); a test may make it lie. */
  declared: number;
}

/** A file a user sends: a photo (in sizes, each its own bytes) or a document. */
export interface UserFileInput {
  chatId: number;
  from: UserInput;
  caption?: string;
  chatType?: 'private' | 'group' | 'supergroup';
}

/** A photo in its sizes, smallest first as Telegram lists them; the last is the largest. */
export interface UserPhotoInput extends UserFileInput {
  sizes: Uint8Array[];
}

export interface UserDocumentInput extends UserFileInput {
  bytes: Uint8Array;
  fileName: string;
  mimeType: string;
  /** The `file_size` Telegram declares, when it should not be the real one (a lying upload). */
  declaredSize?: number;
}

/** A voice note (recorded in the app: OGG/Opus) or, with `fileName`, an audio file sent as music. */
export interface UserVoiceInput extends UserFileInput {
  bytes: Uint8Array;
  duration?: number;
  mimeType?: string;
  /** Sent as an audio file (`message.audio`, with its name), not a voice note. */
  fileName?: string;
  declaredSize?: number;
}

/** One download of a file's bytes: the path asked for and how many bytes the client read before it left. */
export interface Download {
  path: string;
  status: number;
  sent: number;
  /** The client went away before the last byte (the stream was cancelled). */
  cancelled?: boolean;
}

/** A file the bot uploaded (sendDocument, sendPhoto): where it went, and its bytes as they arrived. */
export interface Upload {
  method: 'sendDocument' | 'sendPhoto';
  chatId: number;
  messageId: number;
  name: string;
  bytes: Buffer;
  caption?: string;
}

export class FileStore {
  readonly #files = new Map<string, StoredFile>();
  readonly downloads: Download[] = [];
  readonly uploads: Upload[] = [];
  #seq = 0;

  add(
    bytes: Uint8Array,
    kind: 'photos' | 'documents' | 'voice' | 'music',
    declared = bytes.length,
    name = 'file',
  ): StoredFile {
    const n = ++this.#seq;
    const file: StoredFile = {
      id: `AgACAgIAAxkBAAI${String(n).padStart(6, '0')}fake`,
      uniqueId: `AQAD${n}`,
      path: `${kind}/file_${n}.${name.split('.').at(-1) ?? 'bin'}`,
      bytes,
      declared,
    };
    this.#files.set(file.id, file);
    return file;
  }

  /** getFile: the file's size and path, or the real refusals. */
  getFile(fileId: string | undefined): Record<string, unknown> {
    const file = fileId === undefined ? undefined : this.#files.get(fileId);
    if (!file) throw badRequest('invalid file_id');
    if (file.declared > BOT_DOWNLOAD_LIMIT) throw badRequest('file is too big');
    return { file_id: file.id, file_unique_id: file.uniqueId, file_size: file.declared, file_path: file.path };
  }

  byPath(path: string): StoredFile | undefined {
    for (const file of this.#files.values()) if (file.path === path) return file;
    return undefined;
  }
}

function messageOf(s: FakeState, input: UserFileInput): TgMessage {
  const from = fullUser(input.from);
  const chat = chatFor(input, from);
  s.store.addChat(chat);
  return {
    message_id: s.store.nextMessageId(chat.id),
    from,
    chat: s.store.chat(chat.id),
    date: unixNow(),
    ...(input.caption !== undefined && { caption: input.caption }),
  };
}

/** A photo message: every size stored, the sizes listed smallest first with their dimensions. */
export function userPhoto(s: FakeState, files: FileStore, input: UserPhotoInput): TgUpdate {
  const message = messageOf(s, input);
  message.photo = input.sizes.map((bytes, i) => {
    const file = files.add(bytes, 'photos', bytes.length, 'photo.jpg');
    const side = 90 * 2 ** i;
    return { file_id: file.id, file_unique_id: file.uniqueId, file_size: bytes.length, width: side, height: side };
  });
  s.store.addUserMessage(message);
  return s.hub.push({ message });
}

/** A document message (any file sent "as a file"). */
export function userDocument(s: FakeState, files: FileStore, input: UserDocumentInput): TgUpdate {
  const message = messageOf(s, input);
  const file = files.add(input.bytes, 'documents', input.declaredSize ?? input.bytes.length, input.fileName);
  message.document = {
    file_id: file.id,
    file_unique_id: file.uniqueId,
    file_name: input.fileName,
    mime_type: input.mimeType,
    file_size: file.declared,
  };
  s.store.addUserMessage(message);
  return s.hub.push({ message });
}

/** A voice message (`message.voice`), or an audio file (`message.audio`) when it has a name. */
export function userVoice(s: FakeState, files: FileStore, input: UserVoiceInput): TgUpdate {
  const message = messageOf(s, input);
  const audio = input.fileName !== undefined;
  const name = input.fileName ?? 'voice.oga';
  const file = files.add(input.bytes, audio ? 'music' : 'voice', input.declaredSize ?? input.bytes.length, name);
  const fields = {
    file_id: file.id,
    file_unique_id: file.uniqueId,
    duration: input.duration ?? 3,
    mime_type: input.mimeType ?? (audio ? 'audio/mpeg' : 'audio/ogg'),
    file_size: file.declared,
  };
  if (audio) message.audio = { ...fields, file_name: name };
  else message.voice = fields;
  s.store.addUserMessage(message);
  return s.hub.push({ message });
}

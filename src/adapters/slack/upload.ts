// A file Kazma sends on Slack (send_file), by Slack's external upload flow: files.getUploadURLExternal
// names an upload URL, the bytes are POSTed there, and files.completeUploadExternal shares the file in the
// channel (in the thread, with the text as its comment). Needs the `files:write` scope.
//
// The flow takes no delivery key and its message carries no metadata, so the file's id — known from the
// first step — is what an attempt cut short leaves behind: it is staged with the outbox row (SendProgress)
// before the bytes go. A later attempt asks files.info (scope `files:read`) where that file is shared: here
// already, it is the delivery; not yet, it is shared now; gone (never uploaded whole, or expired), the file
// is uploaded again. So a stop at any step shows the file once.
import type { webApi } from '@slack/bolt';
import { type Message, type OutboundFile, outboundBytes } from '../../core/surface/index.ts';
import { SlackApiError, slackError } from './errors.ts';
import type { SlackTarget } from './ids.ts';

/** What Slack takes in one upload (1 GB). */
export const SLACK_FILE_LIMIT = 1024 ** 3;

/** Where an earlier attempt got to, and how this one records its file's id before the bytes go. */
export interface UploadProgress {
  /** The file id an earlier attempt staged. */
  staged?: string;
  stage?: (fileId: string) => Promise<void>;
}

/** Answers Slack gives about a file it does not have (any more): the upload starts over. */
const NO_FILE = new Set(['file_not_found', 'file_deleted', 'invalid_file_id', 'file_upload_not_found']);

/** Uploads and shares `message.file`, once across attempts; returns the shared file's id. */
export async function uploadSlackFile(
  client: webApi.WebClient,
  apiUrl: string,
  target: SlackTarget,
  message: Message & { file: OutboundFile },
  progress: UploadProgress = {},
): Promise<string> {
  const { file } = message;
  const call = async <T>(method: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw slackError(method, error, apiUrl);
    }
  };
  const share = (id: string) =>
    call('files.completeUploadExternal', () =>
      client.files.completeUploadExternal({
        files: [{ id, title: file.name }],
        channel_id: target.channel,
        ...(message.text.trim() !== '' && { initial_comment: message.text }),
        ...(target.threadTs !== undefined && { thread_ts: target.threadTs }),
      }),
    );
  if (progress.staged !== undefined) {
    const id = progress.staged;
    if (await sharedHere(client, id, target, call)) return id;
    try {
      await share(id);
      return id;
    } catch (error) {
      if (!(error instanceof SlackApiError && NO_FILE.has(error.error))) throw error;
    }
  }
  const bytes = await outboundBytes(file);
  const named = await call('files.getUploadURLExternal', () =>
    client.files.getUploadURLExternal({ filename: file.name, length: bytes.length }),
  );
  if (!named.upload_url || !named.file_id) throw new Error('Slack gave no upload URL for the file');
  await progress.stage?.(named.file_id);
  const put = await fetch(named.upload_url, { method: 'POST', body: new Uint8Array(bytes) });
  await put.body?.cancel();
  if (!put.ok) throw new Error(`Slack's upload URL answered HTTP ${put.status}`);
  await share(named.file_id);
  return named.file_id;
}

/** Where Slack lists a file as shared: channel id -> the messages that share it. */
type Shares = Partial<Record<'public' | 'private', Record<string, Array<{ ts?: string; thread_ts?: string }>>>>;

/**
 * Whether file `id` is shared in the target (in its thread, when it has one). A file Slack does not have is
 * not; any other failure (no `files:read`, the network) throws, and the attempt is retried: sharing it
 * again unseen could show it twice.
 */
async function sharedHere(
  client: webApi.WebClient,
  id: string,
  target: SlackTarget,
  call: <T>(method: string, run: () => Promise<T>) => Promise<T>,
): Promise<boolean> {
  let shares: Shares | undefined;
  try {
    const info = await call('files.info', () => client.files.info({ file: id }));
    shares = info.file?.shares as Shares | undefined;
  } catch (error) {
    if (error instanceof SlackApiError && NO_FILE.has(error.error)) return false;
    throw error;
  }
  const here = shares?.public?.[target.channel] ?? shares?.private?.[target.channel] ?? [];
  return here.some((share) => (target.threadTs === undefined ? true : share.thread_ts === target.threadTs));
}

// A file Kazma sends on Slack (send_file), by Slack's external upload flow: files.getUploadURLExternal
// names an upload URL, the bytes are POSTed there, and files.completeUploadExternal shares the file in the
// channel (in the thread, with the text as its comment). Needs the `files:write` scope.
import type { webApi } from '@slack/bolt';
import { type Message, type OutboundFile, outboundBytes } from '../../core/surface/index.ts';
import { slackError } from './errors.ts';
import type { SlackTarget } from './ids.ts';

/** What Slack takes in one upload (1 GB). */
export const SLACK_FILE_LIMIT = 1024 ** 3;

/** Uploads and shares `message.file`; returns the shared file's id. */
export async function uploadSlackFile(
  client: webApi.WebClient,
  apiUrl: string,
  target: SlackTarget,
  message: Message & { file: OutboundFile },
): Promise<string> {
  const { file } = message;
  const bytes = await outboundBytes(file);
  const call = async <T>(method: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw slackError(method, error, apiUrl);
    }
  };
  const named = await call('files.getUploadURLExternal', () =>
    client.files.getUploadURLExternal({ filename: file.name, length: bytes.length }),
  );
  if (!named.upload_url || !named.file_id) throw new Error('Slack gave no upload URL for the file');
  const put = await fetch(named.upload_url, { method: 'POST', body: new Uint8Array(bytes) });
  await put.body?.cancel();
  if (!put.ok) throw new Error(`Slack's upload URL answered HTTP ${put.status}`);
  await call('files.completeUploadExternal', () =>
    client.files.completeUploadExternal({
      files: [{ id: named.file_id!, title: file.name }],
      channel_id: target.channel,
      ...(message.text.trim() !== '' && { initial_comment: message.text }),
      ...(target.threadTs !== undefined && { thread_ts: target.threadTs }),
    }),
  );
  return named.file_id;
}

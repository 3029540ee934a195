// Files shared with a message: each becomes an Attachment whose ref is its `url_private` (the event came
// signed by Slack), opened when its turn runs with the bot token as a Bearer header. The token goes only to
// Slack's own file host or the origin of `slack.api_url`, whatever URL an event names.
import type { Attachment, AttachmentDownload } from '../../core/surface/index.ts';

/** The fields of a shared file Kazma reads. */
export interface SlackFile {
  id: string;
  name?: string;
  mimetype?: string;
  size?: number;
  url_private?: string;
}

/** A message's files that can be read (a file shared from elsewhere may have no url_private). */
export function attachmentsOf(files: SlackFile[] | undefined): Attachment[] {
  return (files ?? []).flatMap((file) =>
    file.url_private === undefined
      ? []
      : [
          {
            kind: kindOf(file.mimetype),
            ref: file.url_private,
            ...(file.name !== undefined && { name: file.name }),
            ...(file.mimetype !== undefined && { mime: file.mimetype }),
            ...(file.size !== undefined && { size: file.size }),
          },
        ],
  );
}

/** An image is seen, an audio clip (recorded in Slack: `audio/webm`, `audio/mp4`) is heard, the rest read. */
const kindOf = (mime: string | undefined): Attachment['kind'] =>
  mime?.startsWith('image/') ? 'image' : mime?.startsWith('audio/') ? 'audio' : 'document';

const FILE_HOST = 'https://files.slack.com';

/** Downloads a shared file with the bot token, if its URL is Slack's. */
export async function openSlackFile(
  options: { token: string; apiUrl: string },
  attachment: Attachment,
  signal: AbortSignal,
): Promise<AttachmentDownload> {
  const url = new URL(attachment.ref);
  if (url.origin !== FILE_HOST && url.origin !== new URL(options.apiUrl).origin)
    throw new Error(`the file is not on Slack (${url.origin}), so the bot token was not sent there`);
  const response = await fetch(url, { headers: { authorization: `Bearer ${options.token}` }, signal });
  const type = response.headers.get('content-type') ?? '';
  if (!response.ok || !response.body || type.startsWith('text/html')) {
    await response.body?.cancel();
    // Slack answers a request it does not take as the token's with its sign-in page, a 200 of HTML.
    throw new Error(
      type.startsWith('text/html')
        ? 'Slack answered with a sign-in page: the bot token may lack the files:read scope'
        : `Slack's file download answered HTTP ${response.status}`,
    );
  }
  const length = Number(response.headers.get('content-length') ?? Number.NaN);
  return { body: response.body, ...(Number.isFinite(length) && { size: length }) };
}

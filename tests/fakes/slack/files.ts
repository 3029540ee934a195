// Files users share, as Slack serves them to an app: a message event of subtype `file_share` lists each
// file with its `url_private`, which answers the bytes only with the bot token as a Bearer header. Without
// it Slack answers 200 with its sign-in page, HTML, not the file: an app that forgets the header reads that.
import type { Context } from 'hono';

interface SharedFile {
  id: string;
  name: string;
  mimetype: string;
  bytes: Uint8Array;
}

/** A file a user shares with a message. */
export interface FileInput {
  name: string;
  mimetype: string;
  bytes: Uint8Array;
}

/** One request for a file's bytes, and whether it carried the bot token. */
export interface FileDownload {
  id: string;
  authorized: boolean;
}

export class SlackFiles {
  readonly #files = new Map<string, SharedFile>();
  readonly downloads: FileDownload[] = [];
  #seq = 0;

  /** Stores the files and returns them as a `file_share` event lists them. */
  share(baseUrl: string, teamId: string, inputs: FileInput[]): Array<Record<string, unknown>> {
    return inputs.map((input) => {
      const id = `F0${(++this.#seq).toString(36).toUpperCase().padStart(8, '0')}`;
      this.#files.set(id, { id, ...input });
      const url = `${baseUrl}/files-pri/${teamId}-${id}/${encodeURIComponent(input.name)}`;
      return {
        id,
        name: input.name,
        title: input.name,
        mimetype: input.mimetype,
        filetype: input.name.split('.').at(-1) ?? 'binary',
        size: input.bytes.length,
        mode: 'hosted',
        url_private: url,
        url_private_download: `${url}?download=1`,
      };
    });
  }

  /** GET /files-pri/<team>-<id>/<name>: the bytes with the bot token, the sign-in page without. */
  serve(c: Context, botToken: string): Response {
    const id = c.req.param('file')?.split('-').at(-1) ?? '';
    const file = this.#files.get(id);
    const authorized = c.req.header('authorization') === `Bearer ${botToken}`;
    this.downloads.push({ id, authorized });
    if (!authorized) return c.html('<!DOCTYPE html><html><body>Sign in to Slack</body></html>');
    if (!file) return c.text('Not Found', 404);
    return new Response(Buffer.from(file.bytes), {
      headers: { 'content-type': file.mimetype, 'content-length': String(file.bytes.length) },
    });
  }
}

// Slack's external upload flow, as a bot uses it: files.getUploadURLExternal {filename, length} answers an
// upload_url and a file_id; the bytes are POSTed to that URL (raw, or as multipart); then
// files.completeUploadExternal {files: [{id, title}], channel_id, initial_comment?, thread_ts?} shares the
// file in the channel as a message. A file not uploaded, or of another length than announced, is refused
// as Slack refuses it. Every shared file is kept with its bytes, so a test compares what arrived.
// files.info {file} answers a shared file with its `shares` (`public` for C… channels, `private` for DMs
// and private channels: channel id -> [{ ts, thread_ts? }]), as Slack lists where a file was shared; an
// upload never completed is not a file yet (file_not_found).
import type { Context } from 'hono';
import type { SlackStore } from './store.ts';

/** A file shared by completeUploadExternal. */
export interface SlackUpload {
  id: string;
  name: string;
  title: string;
  bytes: Buffer;
  channel: string;
  ts: string;
  threadTs?: string;
  comment?: string;
}

interface Pending {
  name: string;
  length: number;
  bytes?: Buffer;
}

export class SlackUploads {
  readonly shared: SlackUpload[] = [];
  readonly #pending = new Map<string, Pending>();
  #seq = 0;

  /** `baseUrl`: the fake's own origin, known once it listens. */
  constructor(private readonly baseUrl: () => string) {}

  /** The answer to one of the two Web API methods of the flow, or undefined for any other method. */
  handle(method: string, args: Record<string, unknown>, store: SlackStore): Record<string, unknown> | undefined {
    if (method === 'files.getUploadURLExternal') {
      const name = typeof args.filename === 'string' ? args.filename : '';
      const length = Number(args.length);
      if (name === '' || !Number.isInteger(length) || length < 1) return { ok: false, error: 'invalid_arguments' };
      const id = `F0UP${(++this.#seq).toString(36).toUpperCase().padStart(6, '0')}`;
      this.#pending.set(id, { name, length });
      return { ok: true, upload_url: `${this.baseUrl()}/upload/${id}`, file_id: id };
    }
    if (method === 'files.info') return this.#info(args);
    if (method !== 'files.completeUploadExternal') return undefined;
    const files = typeof args.files === 'string' ? (JSON.parse(args.files) as unknown) : args.files;
    if (!Array.isArray(files) || files.length === 0) return { ok: false, error: 'invalid_arguments' };
    const channel = typeof args.channel_id === 'string' ? args.channel_id : undefined;
    const threadTs = typeof args.thread_ts === 'string' && args.thread_ts !== '' ? args.thread_ts : undefined;
    const comment = typeof args.initial_comment === 'string' ? args.initial_comment : undefined;
    const ready = files.map((f: { id?: string; title?: string }) => ({ f, up: this.#pending.get(f.id ?? '') }));
    if (ready.some(({ up }) => !up?.bytes)) return { ok: false, error: 'file_not_found' };
    if (!channel) return { ok: true, files: ready.map(({ f }) => ({ id: f.id })) }; // uploaded, shared nowhere
    const m = store.post(channel, store.id.botUserId, { text: comment ?? '' }, threadTs);
    for (const { f, up } of ready) {
      this.#pending.delete(f.id!);
      this.shared.push({
        id: f.id!,
        name: up!.name,
        title: f.title ?? up!.name,
        bytes: up!.bytes!,
        channel,
        ts: m.ts,
        ...(threadTs && { threadTs }),
        ...(comment !== undefined && { comment }),
      });
    }
    return { ok: true, files: ready.map(({ f, up }) => ({ id: f.id, name: up!.name, title: f.title ?? up!.name })) };
  }

  /** files.info: a shared file and where it was shared; anything else is not found. */
  #info(args: Record<string, unknown>): Record<string, unknown> {
    const shares = this.shared.filter((u) => u.id === args.file);
    const first = shares[0];
    if (!first) return { ok: false, error: 'file_not_found' };
    const where: Record<'public' | 'private', Record<string, Array<Record<string, string>>>> = {
      public: {},
      private: {},
    };
    for (const u of shares) {
      const kind = u.channel.startsWith('C') ? 'public' : 'private';
      (where[kind][u.channel] ??= []).push({ ts: u.ts, ...(u.threadTs && { thread_ts: u.threadTs }) });
    }
    const { bytes, ...file } = first;
    return { ok: true, file: { id: file.id, name: file.name, title: file.title, size: bytes.length, shares: where } };
  }

  /** POST /upload/:id: the bytes, raw or as the `file` part of a multipart body; their length as announced. */
  async receive(c: Context): Promise<Response> {
    const up = this.#pending.get(c.req.param('id') ?? '');
    if (!up) return c.text('unknown upload', 404);
    const type = c.req.header('content-type') ?? '';
    let bytes: Buffer;
    if (type.includes('multipart/form-data')) {
      const file = (await c.req.parseBody()).file;
      if (!(file instanceof File)) return c.text('no file part', 400);
      bytes = Buffer.from(await file.arrayBuffer());
    } else bytes = Buffer.from(await c.req.arrayBuffer());
    if (bytes.length !== up.length) return c.text(`expected ${up.length} bytes, got ${bytes.length}`, 400);
    up.bytes = bytes;
    return c.text(`OK - ${bytes.length}`);
  }
}

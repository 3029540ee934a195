// A model server's answer read whole into memory, handed to a model SDK as a fetch Response
// (model-fetch.ts), and the content codings such an answer may still come in.
import type { Readable, Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { Response as UndiciResponse } from 'undici';

/** Decoders for the content codings a server may still send (undici's own decoder is experimental and warns). */
export const DECODERS: Record<string, () => Transform> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/** The decoder for a `content-encoding` header's value; none for an answer as sent. */
export function decoderFor(coding: string | null | undefined): (() => Transform) | undefined {
  return DECODERS[coding?.trim().toLowerCase() ?? ''];
}

/** Statuses whose response has no body (a Response refuses one). */
export const NO_BODY = new Set([101, 204, 205, 304]);

/** A (decoded) stream read whole. */
export async function whole(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * A Response whose body is already in memory. A Response built on bytes wraps them in a ReadableStream,
 * and `json()` reads them back through it: per model call, more CPU than parsing the answer. Here the
 * reads take the bytes directly; what fetch promises of them is kept — one read (a second, or one after
 * the body's stream was taken to read, rejects with a TypeError, as fetch's does), `bodyUsed`, and `body`
 * as the same stream each time for whoever wants one (the Anthropic SDK looks at it on every answer).
 * (undici's Response, not the global one: a web framework may swap the global for a class of its own.)
 */
export class WholeResponse extends (UndiciResponse as unknown as new (body: null, init: ResponseInit) => object) {
  #bytes: Buffer;
  #used = false;
  #stream: ReturnType<Blob['stream']> | undefined;

  constructor(bytes: Buffer, init: { status: number; headers: Array<[string, string]> }) {
    super(null, init);
    this.#bytes = bytes;
  }

  #take(): Buffer {
    if (this.bodyUsed) throw new TypeError('Body is unusable: Body has already been read');
    this.#used = true;
    // A stream handed out but never read gives nothing more: the body is read once.
    void this.#stream?.cancel();
    return this.#bytes;
  }

  get bodyUsed(): boolean {
    return this.#used || this.#stream?.locked === true;
  }

  get body(): ReturnType<Blob['stream']> {
    return (this.#stream ??= new Blob([this.#bytes as Uint8Array<ArrayBuffer>]).stream());
  }

  async text(): Promise<string> {
    return this.#take().toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = this.#take();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async bytes(): Promise<Uint8Array> {
    return new Uint8Array(await this.arrayBuffer());
  }

  async blob(): Promise<Blob> {
    return new Blob([this.#take() as Uint8Array<ArrayBuffer>], {
      type: (this as unknown as Response).headers.get('content-type') ?? '',
    });
  }
}

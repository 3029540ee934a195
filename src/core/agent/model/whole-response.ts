// A model server's answer read whole into memory, handed to a model SDK as a fetch Response
// (model-fetch.ts), and the content codings such an answer may still come in.
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable, Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { Response as UndiciResponse } from 'undici';

/** Decoders for the content codings a server may still send (undici's own decoder is experimental and warns). */
const DECODERS: Record<string, () => Transform> = {
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

/** The headers a content coding takes with it when its bytes are decoded: they described the bytes sent. */
export const CODING_HEADERS = ['content-encoding', 'content-length'];

/** A response's headers as undici gives them (a value, a list of them, or none), as name-value pairs. */
export function headerPairs(headers: IncomingHttpHeaders): Array<[string, string]> {
  return Object.entries(headers).flatMap(([name, value]) =>
    (Array.isArray(value) ? value : value === undefined ? [] : [value]).map((one): [string, string] => [name, one]),
  );
}

/** The first value of header `name` (lower case, as undici gives them). */
export function headerOf(headers: Array<[string, string]>, name: string): string | undefined {
  return headers.find(([key]) => key === name)?.[1];
}

/** A (decoded) stream read whole. */
async function whole(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * The Response for an answer read whole, `bytes` as they came: decoded, as fetch does, if they came
 * compressed (the coding's headers go with it); no body for a status that has none.
 */
export async function wholeAnswer(status: number, headers: Array<[string, string]>, bytes: Buffer): Promise<Response> {
  if (NO_BODY.has(status)) return new Response(null, { status, headers });
  const decoder = decoderFor(headerOf(headers, 'content-encoding'));
  if (!decoder) return new WholeResponse(bytes, { status, headers }) as unknown as Response;
  const decoding = decoder();
  decoding.end(bytes);
  const decoded = await whole(decoding);
  const kept = headers.filter(([name]) => !CODING_HEADERS.includes(name));
  return new WholeResponse(decoded, { status, headers: kept }) as unknown as Response;
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

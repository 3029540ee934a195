// The `fetch` the model SDKs (openai, @anthropic-ai/sdk) call, over undici's request API instead of
// Node's fetch. Measured in a chat turn (bench/turn-throughput.ts): Node's fetch, with its WHATWG streams
// for every request and response body, cost ~1.5–2 ms of CPU per model call; undici's request, the client
// under that fetch, ~0.8 ms less a turn. What a model SDK relies on is kept: the signal aborts the call
// (rejecting with the signal's reason, as fetch does), credentials in the URL are refused, redirects are
// followed, an answer is asked for uncompressed and decoded if it comes compressed anyway, an event
// stream (`stream: true`) stays a stream — except a chat answer whose words are wanted as they come, streamed
// here and handed over whole (streamed-answer.ts); anything else is read whole, and handed over as a WholeResponse:
// its body is read from memory without building a WHATWG stream to read it back through (below).
import { pipeline, Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { Agent, interceptors, request, Response as UndiciResponse } from 'undici';
import { answerWords } from './answer-words.ts';
import { readStreamedAnswer, streamedRequestBody } from './streamed-answer.ts';

/**
 * One pool of kept-alive connections per model server, for every model client of the process. Its sockets
 * buffer nothing ahead of their reader (highWaterMark 0): a streamed answer read in batches
 * (streamed-answer.ts) leaves the bytes that came meanwhile in the kernel instead of waking the process to
 * take each in. (A whole answer is read as it comes, so it loses nothing by it.)
 */
// (undici hands `connect`'s options on to net.connect / tls.connect; its type names only its own.)
const dispatcher = new Agent({ connect: { highWaterMark: 0 } as Agent.Options['connect'] }).compose(
  interceptors.redirect({ maxRedirections: 5 }),
);

/** Decoders for the content codings a server may still send (undici's own decoder is experimental and warns). */
const DECODERS: Record<string, () => NodeJS.ReadWriteStream> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/** Statuses whose response has no body (a Response refuses one). */
const NO_BODY = new Set([101, 204, 205, 304]);

/** fetch(input, init) for a model SDK; see the file header for what it keeps of fetch. */
export const modelFetch: typeof fetch = async (input, init) => {
  const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
  // As fetch does: credentials in the URL are refused, never sent.
  if (url.username || url.password)
    throw new TypeError('Request cannot be constructed from a URL that includes credentials');
  const headers: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, name) => {
    headers[name] = value;
  });
  // Uncompressed, unless the SDK asked otherwise: a model's answer is small, and decoding costs CPU.
  headers['accept-encoding'] ??= 'identity';
  const method = (init?.method ?? 'GET').toUpperCase() as 'GET';
  // A chat answer whose words are shown as they come is streamed here, below the SDK (streamed-answer.ts).
  const words = answerWords();
  const streamed = words && streamedRequestBody(url, method, init?.body);
  if (streamed) headers['content-length'] &&= String(Buffer.byteLength(streamed));
  const answer = await request(url, {
    method,
    headers,
    body: streamed || (init?.body as string | null | undefined),
    signal: init?.signal ?? undefined,
    dispatcher,
    // A streamed answer's body holds no bytes ahead of its reader: read in batches, the rest waits (above).
    ...(streamed && { highWaterMark: 0 }),
  });
  const responseHeaders = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value])
      responseHeaders.append(name, one);
  }
  const status = answer.statusCode;
  if (NO_BODY.has(status)) {
    answer.body.resume();
    return new Response(null, { status, headers: responseHeaders });
  }
  // Decoded, as fetch does; the coding's headers go with it (they described the bytes on the wire).
  const decoder = DECODERS[responseHeaders.get('content-encoding')?.trim().toLowerCase() ?? ''];
  // pipeline: an error or abort of the answer reaches whoever reads the decoded stream.
  const content: Readable = decoder
    ? (pipeline(answer.body, decoder(), () => undefined) as unknown as Readable)
    : answer.body;
  if (decoder) for (const name of ['content-encoding', 'content-length']) responseHeaders.delete(name);
  const eventStream = responseHeaders.get('content-type')?.includes('text/event-stream') === true;
  if (streamed && eventStream && status === 200) {
    const body = await readStreamedAnswer(content, words!, init?.signal);
    responseHeaders.set('content-type', 'application/json');
    responseHeaders.delete('content-length');
    return new WholeResponse(body, { status, headers: [...responseHeaders] }) as unknown as Response;
  }
  if (eventStream) {
    return new Response(Readable.toWeb(content) as ReadableStream<Uint8Array>, { status, headers: responseHeaders });
  }
  const bytes = decoder ? await whole(content) : Buffer.from(await answer.body.arrayBuffer());
  return new WholeResponse(bytes, { status, headers: [...responseHeaders] }) as unknown as Response;
};

/** A (decoded) stream read whole. */
async function whole(stream: Readable): Promise<Buffer> {
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
class WholeResponse extends (UndiciResponse as unknown as new (body: null, init: ResponseInit) => object) {
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

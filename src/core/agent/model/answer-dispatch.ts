// A chat answer streamed by Kazma's fetch (streamed-answer.ts), taken straight from undici's dispatcher: each
// piece the connection hands over goes to the answer's reader, and between reads the flow of bytes is
// paused (read-in-batches.ts). Read through a response body stream instead (undici's `request`), every
// event also cost that stream's push and read and a pause and resume of the HTTP parser (bench/streaming.ts,
// docs/performance.md). What `modelFetch` keeps of fetch is kept here too: the signal aborts the call
// (rejecting with its reason), redirects are followed (the dispatcher's), a compressed answer is decoded,
// and an answer that is not a stream of events (an error status, a server that ignores `stream`) is handed
// over whole, as it came.
import type { IncomingHttpHeaders } from 'node:http';
import type { Transform } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { AnswerWords } from './answer-words.ts';
import { BatchedReads } from './read-in-batches.ts';
import { AnswerReader } from './streamed-answer.ts';
import { CODING_HEADERS, decoderFor, headerOf, headerPairs, WholeResponse, wholeAnswer } from './whole-response.ts';

export interface StreamedCall {
  url: URL;
  method: string;
  headers: Record<string, string>;
  /** The request asking for a stream (streamedRequestBody). */
  body: string;
  signal?: AbortSignal | null;
  dispatcher: Dispatcher;
  /** Told the answer's words as they come. */
  words: AnswerWords;
}

/** Sends `call`; resolves once its answer has ended, with the answer whole (see the file header). */
export function dispatchStreamedAnswer(call: StreamedCall): Promise<Response> {
  return new Promise((resolve, reject) => {
    const handler = new AnswerHandler(call, resolve, reject);
    const { url, method, headers, body } = call;
    call.dispatcher.dispatch(
      { origin: url.origin, path: url.pathname + url.search, method: method as Dispatcher.HttpMethod, headers, body },
      handler,
    );
  });
}

/** The answer as an event stream being read: its words are told as they come. */
interface Streaming {
  reader: AnswerReader;
  reads: BatchedReads;
  /** Decodes a compressed stream before it is read (its pieces go to the reader as they are decoded). */
  decoder?: Transform;
}

class AnswerHandler implements Dispatcher.DispatchHandler {
  readonly #call: StreamedCall;
  readonly #resolve: (response: Response) => void;
  readonly #reject: (failure: unknown) => void;
  #controller: Dispatcher.DispatchController | undefined;
  #settled = false;
  #status = 0;
  #headers: Array<[string, string]> = [];
  #streaming: Streaming | undefined;
  /** Anything but an event stream, read whole. */
  readonly #chunks: Buffer[] = [];
  readonly #onAbort = () => this.#controller?.abort(this.#call.signal!.reason);

  constructor(call: StreamedCall, resolve: (response: Response) => void, reject: (failure: unknown) => void) {
    this.#call = call;
    this.#resolve = resolve;
    this.#reject = reject;
    call.signal?.addEventListener('abort', this.#onAbort, { once: true });
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#call.signal?.aborted) controller.abort(this.#call.signal.reason);
  }

  onResponseStart(controller: Dispatcher.DispatchController, status: number, headers: IncomingHttpHeaders): void {
    // An informational response (1xx) is not the answer.
    if (status < 200) return;
    this.#status = status;
    this.#headers = headerPairs(headers);
    if (status !== 200 || !headerOf(this.#headers, 'content-type')?.includes('text/event-stream')) return;
    this.#streaming = this.#stream(controller);
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#streaming) this.#streaming.reads.data(chunk);
    else this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    const streaming = this.#streaming;
    if (!streaming) return void this.#whole();
    streaming.reads.end();
    if (streaming.decoder) streaming.decoder.end();
    else this.#ended(streaming.reader);
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#fail(error);
  }

  #stream(controller: Dispatcher.DispatchController): Streaming {
    const reader = new AnswerReader(this.#call.words);
    const decode = decoderFor(headerOf(this.#headers, 'content-encoding'));
    const decoder = decode?.();
    const reads = new BatchedReads({
      everyMs: reader.readEveryMs,
      flow: controller,
      take: decoder ? (bytes) => void decoder.write(bytes) : (bytes) => reader.take(bytes),
      begun: () => reader.begun,
      fail: (failure) => this.#fail(failure),
    });
    if (decoder) {
      decoder.on('data', (bytes: Buffer) => {
        try {
          reader.take(bytes);
        } catch (failure) {
          this.#fail(failure);
        }
      });
      decoder.once('error', (failure) => this.#fail(failure));
      decoder.once('end', () => this.#ended(reader));
    }
    reader.begin(() => reads.readNow());
    return { reader, reads, ...(decoder && { decoder }) };
  }

  #ended(reader: AnswerReader): void {
    if (this.#settled) return;
    let body: Buffer;
    try {
      body = reader.end();
    } catch (failure) {
      return this.#fail(failure);
    }
    // Handed over as a whole JSON answer, decoded: the stream's own headers no longer describe it.
    const headers = this.#headers.filter(([name]) => name !== 'content-type' && !CODING_HEADERS.includes(name));
    headers.push(['content-type', 'application/json']);
    this.#settle(() => this.#resolve(new WholeResponse(body, { status: 200, headers }) as unknown as Response));
  }

  async #whole(): Promise<void> {
    let response: Response;
    try {
      response = await wholeAnswer(this.#status, this.#headers, Buffer.concat(this.#chunks));
    } catch (failure) {
      return this.#fail(failure);
    }
    this.#settle(() => this.#resolve(response));
  }

  #fail(failure: unknown): void {
    if (this.#settled) return;
    const signal = this.#call.signal;
    this.#settle(() => {
      this.#streaming?.reads.close();
      this.#streaming?.decoder?.destroy();
      if (this.#streaming) this.#streaming.reader.failed();
      // The connection is closed: nothing more of this answer is read.
      this.#controller?.pause();
      this.#controller?.abort(failure instanceof Error ? failure : new Error(String(failure)));
      // As fetch does: an aborted call rejects with the signal's reason.
      this.#reject(signal?.aborted ? signal.reason : failure);
    });
  }

  #settle(settle: () => void): void {
    this.#settled = true;
    this.#call.signal?.removeEventListener('abort', this.#onAbort);
    settle();
  }
}

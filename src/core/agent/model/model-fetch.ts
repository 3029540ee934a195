// The `fetch` the model SDKs (openai, @anthropic-ai/sdk) call, over undici's request API instead of
// Node's fetch. Measured in a chat turn (bench/turn-throughput.ts): Node's fetch, with its WHATWG streams
// for every request and response body, cost ~1.5–2 ms of CPU per model call; undici's request, the client
// under that fetch, ~0.8 ms less a turn. What a model SDK relies on is kept: the signal aborts the call
// (rejecting with the signal's reason, as fetch does), credentials in the URL are refused, redirects are
// followed, an answer is asked for uncompressed and decoded if it comes compressed anyway, an event
// stream (`stream: true`) stays a stream — except a chat answer whose words are wanted as they come, streamed
// here, straight from undici's dispatcher, and handed over whole (answer-dispatch.ts); anything else is read
// whole, and handed over as a WholeResponse: its body is read from memory without building a WHATWG stream to
// read it back through (whole-response.ts).
import { pipeline, Readable } from 'node:stream';
import { Agent, interceptors, request } from 'undici';
import { dispatchStreamedAnswer } from './answer-dispatch.ts';
import { answerWords } from './answer-words.ts';
import { streamedRequestBody } from './streamed-answer.ts';
import { CODING_HEADERS, decoderFor, headerOf, headerPairs, NO_BODY, wholeAnswer } from './whole-response.ts';

/**
 * One pool of kept-alive connections per model server, for every model client of the process. Its sockets
 * buffer nothing ahead of their reader (highWaterMark 0): a streamed answer read in batches
 * (read-in-batches.ts) leaves the bytes that came meanwhile in the kernel instead of waking the process to
 * take each in. (A whole answer is read as it comes, so it loses nothing by it.)
 */
// (undici hands `connect`'s options on to net.connect / tls.connect; its type names only its own.)
const dispatcher = new Agent({ connect: { highWaterMark: 0 } as Agent.Options['connect'] }).compose(
  interceptors.redirect({ maxRedirections: 5 }),
);

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
  if (streamed) {
    headers['content-length'] &&= String(Buffer.byteLength(streamed));
    return dispatchStreamedAnswer({ url, method, headers, body: streamed, signal: init?.signal, dispatcher, words });
  }
  const answer = await request(url, {
    method,
    headers,
    body: init?.body as string | null | undefined,
    signal: init?.signal ?? undefined,
    dispatcher,
  });
  const answerHeaders = headerPairs(answer.headers);
  const status = answer.statusCode;
  // An event stream stays a stream; anything else is read whole.
  if (!NO_BODY.has(status) && headerOf(answerHeaders, 'content-type')?.includes('text/event-stream')) {
    // Decoded, as fetch does; the coding's headers go with it (they described the bytes on the wire).
    const decoder = decoderFor(headerOf(answerHeaders, 'content-encoding'));
    // pipeline: an error or abort of the answer reaches whoever reads the decoded stream.
    const content: Readable = decoder
      ? (pipeline(answer.body, decoder(), () => undefined) as unknown as Readable)
      : answer.body;
    const kept = decoder ? answerHeaders.filter(([name]) => !CODING_HEADERS.includes(name)) : answerHeaders;
    return new Response(Readable.toWeb(content) as ReadableStream<Uint8Array>, { status, headers: kept });
  }
  return wholeAnswer(status, answerHeaders, Buffer.from(await answer.body.arrayBuffer()));
};

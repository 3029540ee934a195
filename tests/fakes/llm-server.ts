// A small, honest fake of an OpenAI-compatible server: real HTTP on 127.0.0.1, driven by the real
// @langchain/openai client, and `POST /v1/embeddings` (llm-embeddings.ts). The same steps answer Anthropic's
// `POST /v1/messages` in its own wire format (llm-anthropic.ts; `model.base_url` is then `origin`), and
// `POST /v1/audio/transcriptions` (llm-transcription.ts). Tests script replies, inject failures, hangs and
// holds, and read what was received.
// Also runnable on its own (`node --import tsx tests/fakes/llm-server.ts`) for tests of a spawned Kazma.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import {
  completionChunks,
  completionJson,
  defaultStep,
  errorBody,
  render,
  type ChatRequestBody,
  type FakeStep,
} from './llm-wire.ts';
import { embeddingsResponse, type EmbeddingsRequestBody } from './llm-embeddings.ts';
import { messageEvents, messageJson } from './llm-anthropic.ts';
import { defaultTranscript, type FakeTranscription, transcriptionResponse } from './llm-transcription.ts';

export type { ChatRequestBody, FakeStep, FakeToolCall } from './llm-wire.ts';
export { fakeEmbedding } from './llm-embeddings.ts';
export type { FakeTranscription } from './llm-transcription.ts';

/** An injected failure: the status, and optionally the body (default: OpenAI-shaped) and headers. */
export interface FakeFailure {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** One received chat request, failed and hung ones included; `at` is `Date.now()` on arrival. */
export interface FakeAttempt {
  at: number;
  body: ChatRequestBody;
  headers: IncomingHttpHeaders;
  outcome: 'ok' | 'failed' | 'hung' | 'held';
  /** `Date.now()` when the whole answer was written (a paced stream's last chunk included). */
  endedAt?: number;
  /** `Date.now()` as each event of a paced stream was written (the second: the first words). */
  chunksAt?: number[];
  /** `Date.now()` when the connection closed before the whole answer was written (the client gave up). */
  closedAt?: number;
}

/** Requests held by {@link FakeLlm.holdNext}: each is answered when `release()` is called. */
export interface FakeHold {
  release(): void;
}

export interface FakeLlm {
  /** e.g. `http://127.0.0.1:PORT/v1` — the value for `model.base_url`. */
  baseURL: string;
  /** e.g. `http://127.0.0.1:PORT` — `model.base_url` for `provider: anthropic` (its client adds `/v1/messages`). */
  origin: string;
  port: number;
  /** Every chat request body received, in order. */
  requests: ChatRequestBody[];
  /** Every chat request with its arrival time and what the fake did with it. */
  attempts: FakeAttempt[];
  /** Queue replies; each request takes the next one, then the default applies. */
  script(...steps: FakeStep[]): void;
  /** The next `n` requests fail with this status. Failures are taken before hangs and scripted steps. */
  failNext(n: number, failure: FakeFailure): void;
  /** The next `n` requests (not failed) wait `ms` before replying; a client that gives up just goes away. */
  hangNext(n: number, ms: number): void;
  /**
   * The next `n` requests (not failed) wait until `release()`: a test asserts what happens while a model
   * call is under way (an acknowledgement sent, other calls made) by order, not by a clock that a loaded
   * machine can outrun. Taken before hangs; a client that gives up just goes away.
   */
  holdNext(n: number): FakeHold;
  /** Every well-formed transcription request (`POST /v1/audio/transcriptions`), in order. */
  transcriptions: FakeTranscription[];
  /** What the next transcriptions hear, in order; then {@link defaultTranscript}. */
  hearNext(...texts: string[]): void;
  /** Replace the default reply (used once the script is empty). */
  setDefault(fn: (body: ChatRequestBody) => FakeStep): void;
  close(): Promise<void>;
}

export async function startFakeLlm(opts: { port?: number } = {}): Promise<FakeLlm> {
  const steps: FakeStep[] = [];
  const failures: FakeFailure[] = [];
  const hangs: number[] = [];
  const holds: Array<Promise<void>> = [];
  const timers = new Set<NodeJS.Timeout>();
  let fallback: (body: ChatRequestBody) => FakeStep = defaultStep;
  let seq = 0;
  const requests: ChatRequestBody[] = [];
  const attempts: FakeAttempt[] = [];
  const transcriptions: FakeTranscription[] = [];
  const heard: string[] = [];
  const hear: Hear = (headers, body) =>
    transcriptionResponse(headers, body, (call) => {
      transcriptions.push(call);
      return heard.shift() ?? defaultTranscript(call.bytes);
    });

  const reply = (body: ChatRequestBody, res: ServerResponse, wire: Wire, attempt?: FakeAttempt): void => {
    // The step is taken only when we really answer, so a request abandoned during a hang uses none.
    const r = render(steps.shift() ?? fallback(body), body, ++seq);
    const anthropic = wire === 'anthropic';
    if (!body.stream) return sendJson(res, 200, anthropic ? messageJson(r) : completionJson(r));
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const events = anthropic
      ? messageEvents(r)
      : completionChunks(r, body.stream_options?.include_usage === true).map((data) => `data: ${data}\n\n`);
    const { delayMs = 0, bytes = false, cutAfter } = r.pacing;
    if (delayMs === 0 && !bytes && cutAfter === undefined) {
      for (const event of events) res.write(event);
      return void res.end();
    }
    writePaced(res, events, { delayMs, bytes, cutAfter }, attempt && (attempt.chunksAt = []));
  };

  const chat: ChatHandler = (body, headers, res, wire) => {
    requests.push(body);
    const index = attempts.length;
    res.on('finish', () => {
      const attempt = attempts[index];
      if (attempt) attempt.endedAt = Date.now();
    });
    res.on('close', () => {
      const attempt = attempts[index];
      if (attempt && !res.writableFinished) attempt.closedAt = Date.now();
    });
    const failure = failures.shift();
    if (failure) {
      attempts.push({ at: Date.now(), body, headers, outcome: 'failed' });
      return sendJson(res, failure.status, failure.body ?? errorBody(failure.status), failure.headers);
    }
    const hold = holds.shift();
    if (hold) {
      attempts.push({ at: Date.now(), body, headers, outcome: 'held' });
      void hold.then(() => {
        if (!res.destroyed) reply(body, res, wire, attempts[index]);
      });
      return;
    }
    const hang = hangs.shift();
    attempts.push({ at: Date.now(), body, headers, outcome: hang === undefined ? 'ok' : 'hung' });
    if (hang === undefined) return reply(body, res, wire, attempts[index]);
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!res.destroyed) reply(body, res, wire, attempts[index]);
    }, hang);
    timers.add(timer);
    res.on('close', () => {
      clearTimeout(timer);
      timers.delete(timer);
    });
  };

  const server = createServer((req, res) => {
    void route(req, res, chat, hear).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: String(err), type: 'server_error', code: null } });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    origin: `http://127.0.0.1:${port}`,
    port,
    requests,
    attempts,
    script: (...s) => {
      steps.push(...s);
    },
    failNext: (n, failure) => {
      for (let i = 0; i < n; i++) failures.push(failure);
    },
    hangNext: (n, ms) => {
      for (let i = 0; i < n; i++) hangs.push(ms);
    },
    holdNext: (n) => {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      for (let i = 0; i < n; i++) holds.push(released);
      return { release };
    },
    transcriptions,
    hearNext: (...texts) => {
      heard.push(...texts);
    },
    setDefault: (fn) => {
      fallback = fn;
    },
    close: async () => {
      for (const t of timers) clearTimeout(t);
      // Keep-alive sockets would hold close() open until they idle out.
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The wire format a chat request came in, and is answered, in: its path says. */
type Wire = 'openai' | 'anthropic';

type ChatHandler = (body: ChatRequestBody, headers: IncomingHttpHeaders, res: ServerResponse, wire: Wire) => void;

type Hear = (headers: IncomingHttpHeaders, body: Buffer) => Promise<{ status: number; json: unknown }>;

async function route(req: IncomingMessage, res: ServerResponse, chat: ChatHandler, hear: Hear): Promise<void> {
  const path = (req.url ?? '/').split('?')[0];
  if (req.method === 'GET' && path === '/v1/models') {
    return sendJson(res, 200, {
      object: 'list',
      data: [{ id: 'fake-model', object: 'model', created: 0, owned_by: 'kazma-fake' }],
    });
  }
  if (req.method === 'POST' && (path === '/v1/chat/completions' || path === '/v1/messages')) {
    let body: ChatRequestBody;
    try {
      body = JSON.parse(await readBody(req)) as ChatRequestBody;
    } catch {
      return sendJson(res, 400, { error: { message: 'body is not JSON', type: 'invalid_request_error', code: null } });
    }
    return chat(body, req.headers, res, path === '/v1/messages' ? 'anthropic' : 'openai');
  }
  if (req.method === 'POST' && path === '/v1/embeddings') {
    let body: EmbeddingsRequestBody;
    try {
      body = JSON.parse(await readBody(req)) as EmbeddingsRequestBody;
    } catch {
      return sendJson(res, 400, { error: { message: 'body is not JSON', type: 'invalid_request_error', code: null } });
    }
    const answer = embeddingsResponse(body);
    return sendJson(res, answer.status, answer.json);
  }
  if (req.method === 'POST' && path === '/v1/audio/transcriptions') {
    const answer = await hear(req.headers, await readBytes(req));
    return sendJson(res, answer.status, answer.json);
  }
  sendJson(res, 404, {
    error: { message: `no route ${req.method} ${path}`, type: 'invalid_request_error', code: null },
  });
}

async function readBody(req: IncomingMessage): Promise<string> {
  return (await readBytes(req)).toString('utf8');
}

async function readBytes(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

// Run as a process: `node --import tsx tests/fakes/llm-server.ts [--port N] [--script FILE]`.
// FILE holds a JSON array of steps ({ text } or { toolCalls }); the default applies after them.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (name: string): string | undefined => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const llm = await startFakeLlm({ port: Number(arg('--port') ?? 0) });
  const file = arg('--script');
  if (file) llm.script(...(JSON.parse(readFileSync(file, 'utf8')) as FakeStep[]));
  process.stdout.write(`LISTENING ${llm.port}\n`);
  const stop = (): void => {
    void llm.close().then(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

/**
 * Writes the events one at a time, `delayMs` apart; with `bytes`, every byte in a write of its own, each
 * after the last one left (a split anywhere: inside a character, a JSON delta, an event line). Each write
 * schedules the next (a pace, not a wait on something to happen).
 */
function writePaced(
  res: ServerResponse,
  events: string[],
  pacing: { delayMs: number; bytes: boolean; cutAfter?: number | undefined },
  writtenAt?: number[],
): void {
  res.socket?.setNoDelay(true);
  const writes = pacing.bytes ? events.map((event) => [...Buffer.from(event)].map((b) => Buffer.of(b))) : [];
  const next = (event: number, byte: number): void => {
    if (res.destroyed) return;
    if (event === events.length) return void res.end();
    if (event === pacing.cutAfter) return void res.destroy();
    const pieces = writes[event];
    if (pieces && byte < pieces.length) return void res.write(pieces[byte]!, () => setImmediate(next, event, byte + 1));
    if (!pieces) res.write(events[event]!);
    writtenAt?.push(Date.now());
    setTimeout(next, pacing.delayMs, event + 1, 0);
  };
  next(0, 0);
}

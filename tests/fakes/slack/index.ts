// A small, honest fake Slack on 127.0.0.1: the Web API under /api/:method (form or JSON bodies,
// Bearer auth, real error strings and limits), response URLs under /response/:id, and a signer
// that plays Slack towards the app. The real @slack/bolt / WebClient is pointed at `apiUrl`.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { serve } from '@hono/node-server';
import { channelKind, methods, respond, type ApiResult } from './api.ts';
import { SlackStreams } from './streams.ts';
import { CallLog } from './call-log.ts';
import { decodeJsonField } from './limits.ts';
import { AnswerHolds, type HeldAnswer } from '../answer-holds.ts';
import { type SlackUpload, SlackUploads } from './uploads.ts';
import { SlackFiles, type FileDownload } from './files.ts';
import { createSigner, type SlackSigner } from './signer.ts';
import { SlackViews, type OpenView } from './views.ts';
import { SlackStore, type Identity, type ResponseTarget, type StoredEphemeral, type StoredMessage } from './store.ts';

export type { SlackCall, CallPredicate } from './call-log.ts';
export type { Delivery, EventOptions, PostOptions, SlackSigner } from './signer.ts';
export type { Identity, ResponseTarget, StoredEphemeral, StoredMessage, MessageVersion } from './store.ts';
export { CallLog } from './call-log.ts';
export type { FileDownload, FileInput } from './files.ts';
export type { OpenView } from './views.ts';
export { LIMITS } from './limits.ts';

export interface FakeSlackOptions {
  botToken?: string;
  signingSecret?: string;
  botUserId?: string;
  botId?: string;
  teamId?: string;
  appId?: string;
  /** False: a workspace without Slack's chat streaming API (its methods answer `unknown_method`). */
  streaming?: boolean;
  /** How long a stream stays open after it began (Slack: about 5 minutes). */
  streamLifetimeMs?: number;
}

/** An injected answer for the next `times` (default 1) calls of a method ('response_url' included). */
export interface FailureSpec {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  times?: number;
}

/** A body the app sent to a response URL, or a slash command's immediate (ack) body. */
export interface RecordedResponse {
  url: string;
  target: ResponseTarget;
  body: Record<string, unknown>;
  via: 'response_url' | 'slash_ack';
  result: ApiResult;
  at: number;
}

export interface FakeSlack {
  /** `http://127.0.0.1:PORT/api/` — the value for `clientOptions.slackApiUrl` / `slack.api_url`. */
  apiUrl: string;
  baseUrl: string;
  botToken: string;
  signingSecret: string;
  identity: Identity;
  calls: CallLog;
  /** The channel's history, oldest first: user messages sent by the signer and the app's messages. */
  messages(channel: string): StoredMessage[];
  ephemerals(channel: string, user?: string): StoredEphemeral[];
  responses: RecordedResponse[];
  failNext(method: string, spec: FailureSpec): void;
  /**
   * The call of `method` after `after` more (default 0) is acted on — stored, as Slack would — but its answer
   * is held until `release`: a post Slack took whose answer a stopped client never read. `upload` names the
   * POST of a file's bytes to its upload URL.
   */
  holdAnswer(method: string, options?: { after?: number }): HeldAnswer;
  signer: SlackSigner;
  /** Every request for a shared file's bytes (`url_private`), in order. */
  fileDownloads: FileDownload[];
  /** Every file the app shared through the external upload flow, with its bytes. */
  uploads: SlackUpload[];
  /** Every modal the app opened (views.open), oldest first; `signer.submitView` submits one. */
  views: OpenView[];
  close(): Promise<void>;
}

/** Fields Slack clients send as JSON strings inside a form; decoded so the log shows structure. */
const JSON_FIELDS = ['blocks', 'attachments', 'metadata', 'view'];

async function readArgs(c: Context): Promise<Record<string, unknown> | 'invalid_json'> {
  if (c.req.method === 'GET') return { ...c.req.query() };
  const type = c.req.header('content-type') ?? '';
  let args: Record<string, unknown>;
  if (type.includes('multipart/form-data')) args = { ...(await c.req.parseBody()) };
  else if (type.includes('application/json')) {
    try {
      args = JSON.parse(await c.req.text()) as Record<string, unknown>;
    } catch {
      return 'invalid_json';
    }
    if (typeof args !== 'object' || args === null || Array.isArray(args)) return 'invalid_json';
  } else args = Object.fromEntries(new URLSearchParams(await c.req.text()));
  for (const f of JSON_FIELDS) if (f in args) args[f] = decodeJsonField(args[f]);
  return args;
}

export async function startFakeSlack(opts: FakeSlackOptions = {}): Promise<FakeSlack> {
  const botToken = opts.botToken ?? 'xoxb-fake-0000-token';
  const signingSecret = opts.signingSecret ?? 'fake-signing-secret';
  const identity: Identity = {
    teamId: opts.teamId ?? 'T0FAKE',
    appId: opts.appId ?? 'A0KAZMA',
    botUserId: opts.botUserId ?? 'UBOTKAZMA',
    botId: opts.botId ?? 'BBOTKAZMA',
  };
  const store = new SlackStore(identity);
  const calls = new CallLog();
  const responses: RecordedResponse[] = [];
  const failures = new Map<string, Array<FailureSpec & { left: number }>>();
  const holds = new AnswerHolds();
  const streams = new SlackStreams({ lifetimeMs: opts.streamLifetimeMs ?? 300_000, isChannel: channelKind });
  const streamMethods = opts.streaming === false ? {} : streams.methods;
  let baseUrl = '';

  /** Takes the next injected failure for `method`, if any, as the response to send. */
  const injected = (method: string, args: Record<string, unknown>): Response | undefined => {
    const queue = failures.get(method);
    const f = queue?.[0];
    if (!queue || !f) return undefined;
    if (--f.left <= 0) queue.shift();
    const body = (f.body ??
      (f.status === 429 ? { ok: false, error: 'ratelimited' } : { ok: false, error: 'internal_error' })) as Record<
      string,
      unknown
    >;
    const headers = { ...(f.status === 429 ? { 'Retry-After': '1' } : {}), ...f.headers };
    calls.record({ method, args, status: f.status, response: body, injected: true });
    return new Response(JSON.stringify(body), {
      status: f.status,
      headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    });
  };

  const files = new SlackFiles();
  const uploads = new SlackUploads(() => baseUrl);
  const views = new SlackViews(identity);
  const app = new Hono();
  app.get('/files-pri/:file/:name', (c) => files.serve(c, botToken));
  app.post('/upload/:id', async (c) => {
    const answer = await uploads.receive(c);
    await holds.answer('upload'); // the bytes are Slack's now; the answer may be held like a method's
    return answer;
  });
  app.on(['GET', 'POST'], '/api/:method', async (c) => {
    const method = c.req.param('method');
    const args = await readArgs(c);
    if (args === 'invalid_json') return c.json({ ok: false, error: 'invalid_json' });
    const failure = injected(method, args);
    if (failure) return failure;
    const bearer =
      /^Bearer (.+)$/.exec(c.req.header('authorization') ?? '')?.[1] ??
      (typeof args.token === 'string' ? args.token : undefined);
    const handler = streamMethods[method] ?? methods[method];
    // Slack answers auth and unknown-method errors with HTTP 200 and ok:false, like any platform error.
    const response = !bearer
      ? { ok: false, error: 'not_authed' }
      : bearer !== botToken
        ? { ok: false, error: 'invalid_auth' }
        : (refusedUpdate(method, args) ??
          uploads.handle(method, args, store) ??
          views.handle(method, args) ??
          (handler ? handler(args, store) : { ok: false, error: 'unknown_method' }));
    calls.record({ method, args, status: 200, response, injected: false }); // after the handler mutated the store
    await holds.answer(method);
    return c.json(response);
  });

  /** chat.update of a message still streaming: refused (streams.ts says why). */
  const refusedUpdate = (method: string, args: Record<string, unknown>): ApiResult | undefined => {
    if (method !== 'chat.update' || typeof args.channel !== 'string' || typeof args.ts !== 'string') return undefined;
    const m = store.find(args.channel, args.ts);
    return m && streams.streaming(m) ? { ok: false, error: 'cant_update_message' } : undefined;
  };

  const targets = store.responseTargets;
  const answer = (url: string, body: Record<string, unknown>, via: RecordedResponse['via']): ApiResult | undefined => {
    const target = targets.get(url);
    if (!target) return undefined;
    const result = respond(target, body, store, via);
    responses.push({ url, target, body, via, result, at: Date.now() });
    return result;
  };
  app.post('/response/:id', async (c) => {
    const url = `${baseUrl}/response/${c.req.param('id')}`;
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(await c.req.text()) as Record<string, unknown>;
    } catch {
      return c.json({ ok: false, error: 'invalid_payload' }, 400);
    }
    const failure = injected('response_url', body);
    if (failure) return failure;
    const result = answer(url, body, 'response_url');
    // Like incoming webhooks, a response URL reports bad bodies with HTTP 400 (so Bolt's respond() throws).
    const status = !result ? 404 : result.ok === true ? 200 : 400;
    const response = result ?? { ok: false, error: 'expired_url' };
    calls.record({ method: 'response_url', args: body, status, response, injected: false });
    return c.json(response, status);
  });

  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s as Server));
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const signer = createSigner({
    secret: signingSecret,
    store,
    responseUrl: (target) => {
      const url = `${baseUrl}/response/${randomBytes(12).toString('hex')}`;
      targets.set(url, target);
      return url;
    },
    slashAck: (url, body) => void answer(url, body, 'slash_ack'),
    shareFiles: (shared) => files.share(baseUrl, identity.teamId, shared),
    views,
  });

  return {
    apiUrl: `${baseUrl}/api/`,
    baseUrl,
    botToken,
    signingSecret,
    identity,
    calls,
    responses,
    signer,
    fileDownloads: files.downloads,
    uploads: uploads.shared,
    views: views.open,
    messages: (channel) => store.messages(channel),
    ephemerals: (channel, user) => store.ephemerals(channel, user),
    holdAnswer: (method, options) => holds.hold(method, options),
    failNext: (method, spec) => {
      const queue = failures.get(method) ?? [];
      queue.push({ ...spec, left: spec.times ?? 1 });
      failures.set(method, queue);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections(); // keep-alive sockets from fetch/undici would otherwise hold close() open
        server.close((e) => (e ? reject(e) : resolve()));
      }),
  };
}

// A small, honest fake of the Telegram Bot API: real HTTP on 127.0.0.1 (hono + @hono/node-server),
// driven by the real grammy client with only `apiRoot` changed. It validates like Telegram, answers
// with the real envelope and error strings, and keeps what the bot sent so tests can assert on it.
import { Hono, type Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { serve } from '@hono/node-server';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readParams, type Params } from './body.ts';
import { CallLog } from './call-log.ts';
import {
  FileStore,
  userDocument,
  userPhoto,
  userVoice,
  type Download,
  type Upload,
  type UserDocumentInput,
  type UserPhotoInput,
  type UserVoiceInput,
} from './files.ts';
import { tap, userMessage, type TapInput, type UserMessageInput } from './inbound.ts';
import { METHODS, commandKey, lookupMethod, type BotCommand, type FakeState } from './methods.ts';
import { MessageStore, type StoredMessage } from './store.ts';
import { UpdateHub, type Delivery } from './updates.ts';
import { TelegramApiError, type TgChat, type TgUpdate, type TgUser } from './wire.ts';

export { CallLog, type CallRecord } from './call-log.ts';
export { telegramHtmlToPlain, parseTelegramHtml } from './html.ts';
export type { StoredMessage, StoredVersion } from './store.ts';
export type { TapInput, UserMessageInput, UserInput } from './inbound.ts';
export type { Delivery } from './updates.ts';
export type { Download, Upload, UserDocumentInput, UserPhotoInput, UserVoiceInput } from './files.ts';
export type * from './wire.ts';

/** An injected failure: answered instead of running the method, `times` times (default 1). */
/** `after`: this many calls of the method go through first (the second part of a long message fails). */
export interface FailSpec {
  status: number;
  body?: unknown;
  times?: number;
  after?: number;
}

export interface FakeTelegram {
  /** `http://127.0.0.1:PORT`, no trailing slash: the value for grammy's `client.apiRoot`. */
  apiRoot: string;
  token: string;
  port: number;
  bot: TgUser;
  calls: CallLog;
  pushUpdate(update: Omit<TgUpdate, 'update_id'>): TgUpdate;
  sendUserMessage(input: UserMessageInput): TgUpdate;
  tapButton(input: TapInput): TgUpdate;
  /** A user sends a photo (its sizes smallest first) or a document; the bot reads it with getFile. */
  sendUserPhoto(input: UserPhotoInput): TgUpdate;
  sendUserDocument(input: UserDocumentInput): TgUpdate;
  /** A user sends a voice note, or an audio file when `fileName` is given. */
  sendUserVoice(input: UserVoiceInput): TgUpdate;
  /** Every download of a file's bytes (`/file/bot<token>/<path>`), in order. */
  downloads: Download[];
  /** Every file the bot uploaded (sendDocument, sendPhoto), in order, with its bytes. */
  uploads: Upload[];
  /** Registers a chat the bot may write to without a user having written first (e.g. approval channels). */
  addChat(chat: TgChat): void;
  /** The bot's messages in a chat, oldest first (deep copies); deleted ones only with `includeDeleted`. */
  messages(chatId: number, opts?: { includeDeleted?: boolean }): StoredMessage[];
  /** Answer the next call(s) of `method` with this failure; the default body is the real envelope. */
  failNext(method: string, spec: FailSpec): void;
  /**
   * Holds the next call of `method` (after `after` calls go through) before Telegram acts on it: it is
   * carried out when `release()` is called, and never when the caller went away first (a process killed
   * mid-call). `held` resolves once the call arrived; `dropped`, once its caller went away while it was held
   * (a test that kills the caller waits for it: the exit can be seen before the closed connection).
   */
  holdNext(method: string, spec?: { after?: number }): { held: Promise<void>; dropped: Promise<void>; release(): void };
  /**
   * From now on, refuses about `share` of the calls of `method` with a 429 asking to wait `retryAfter`
   * seconds (a storm of rate limits), chosen by a seeded generator so a run is repeatable; 0 ends it.
   */
  rateLimit(method: string, share: number, retryAfter?: number): void;
  /** POSTs an update to the registered webhook now; `secretToken` overrides the header (null: none). */
  postWebhook(
    update: TgUpdate | Omit<TgUpdate, 'update_id'>,
    opts?: { secretToken?: string | null },
  ): Promise<Delivery>;
  /** Every webhook POST made (automatic and explicit), with the bot's HTTP answer. */
  deliveries: Delivery[];
  /** Resolves once queued webhook deliveries have been attempted. */
  webhookSettled(): Promise<void>;
  /** How many getUpdates long polls the fake holds open now (a test waits for one to be held). */
  heldPolls(): number;
  /** The commands set for a scope (default scope) and language, as getMyCommands would return them. */
  commands(opts?: { scope?: unknown; languageCode?: string }): BotCommand[];
  close(): Promise<void>;
}

const DEFAULT_TOKEN = '7000000001:AAFakeTelegramTokenForKazmaTests-01';

function defaultBody(status: number): Record<string, unknown> {
  if (status === 429)
    return {
      ok: false,
      error_code: 429,
      description: 'Too Many Requests: retry after 1',
      parameters: { retry_after: 1 },
    };
  const description =
    status >= 500 ? 'Internal Server Error' : status === 403 ? 'Forbidden: bot was blocked by the user' : 'Bad Request';
  return { ok: false, error_code: status, description };
}

/** Starts the fake on an OS-assigned port. Real tokens are `<bot id>:<secret>`, so the bot id comes from the token. */
export async function startFakeTelegram(
  opts: { token?: string; botUser?: Partial<TgUser> } = {},
): Promise<FakeTelegram> {
  const token = opts.token ?? DEFAULT_TOKEN;
  const idFromToken = Number(token.split(':')[0]);
  const bot: TgUser = {
    id: Number.isSafeInteger(idFromToken) && idFromToken > 0 ? idFromToken : 7000000001,
    is_bot: true,
    first_name: 'Kazma',
    username: 'kazma_test_bot',
    ...opts.botUser,
  };
  const hub = new UpdateHub();
  const files = new FileStore();
  const state: FakeState = {
    bot,
    store: new MessageStore(bot),
    hub,
    queries: new Map(),
    commands: new Map(),
    files,
  };
  const calls = new CallLog();
  const failures = new Map<string, Array<{ status: number; body: unknown } | null>>();
  const holds = new Map<string, Array<Hold | null>>();
  const storms = new Map<string, { share: number; retryAfter: number }>();
  let seed = 42;
  const draw = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };

  const app = new Hono();
  app.get('/file/:auth/*', (c) => {
    const path = c.req.path.slice(`/file/${c.req.param('auth')}/`.length);
    const file = c.req.param('auth') === `bot${token}` ? files.byPath(path) : undefined;
    if (!file) {
      files.downloads.push({ path, status: 404, sent: 0 });
      return c.json({ ok: false, error_code: 404, description: 'Not Found' }, 404);
    }
    const download: Download = { path, status: 200, sent: 0 };
    files.downloads.push(download);
    // In 64 KB pieces, each made when the client reads on: `sent` says how far a client that left early got.
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (download.sent >= file.bytes.length) return controller.close();
        const piece = file.bytes.subarray(download.sent, download.sent + 65_536);
        download.sent += piece.length;
        controller.enqueue(piece);
      },
      cancel() {
        download.cancelled = true;
      },
    });
    return new Response(body, { headers: { 'content-type': 'application/octet-stream' } });
  });
  app.all('/:auth/:method', async (c) => {
    const method = lookupMethod(c.req.param('method')) ?? c.req.param('method');
    const at = Date.now();
    let body: Params = {};
    // Recorded only here, after the handler has changed state (see CallLog).
    const answer = (status: number, payload: Record<string, unknown>): Response => {
      const ok = payload.ok === true;
      calls.record({ method, body, at, ok, status, ...(ok ? {} : { description: String(payload.description) }) });
      return c.json(payload, status as ContentfulStatusCode);
    };
    if (c.req.param('auth') !== `bot${token}`)
      return answer(401, { ok: false, error_code: 401, description: 'Unauthorized' });
    try {
      body = await readParams(c);
      const hold = holds.get(method.toLowerCase())?.shift();
      if (hold && !(await hold.wait(c.req.raw.signal)))
        return answer(499, { ok: false, error_code: 499, description: 'the caller went away' });
      const injected = failures.get(method.toLowerCase())?.shift();
      if (injected) return answer(injected.status, injected.body as Record<string, unknown>);
      const storm = storms.get(method.toLowerCase());
      if (storm && draw() < storm.share)
        return answer(429, {
          ok: false,
          error_code: 429,
          description: `Too Many Requests: retry after ${storm.retryAfter}`,
          parameters: { retry_after: storm.retryAfter },
        });
      const canonical = lookupMethod(method);
      if (!canonical) return answer(404, { ok: false, error_code: 404, description: 'Not Found' });
      const out = await METHODS[canonical]!(state, body, c.req.raw.signal);
      return answer(200, {
        ok: true,
        result: out.result,
        ...(out.description ? { description: out.description } : {}),
      });
    } catch (e) {
      return answer(...errorEnvelope(e));
    }
  });
  app.all('*', (c: Context) => c.json({ ok: false, error_code: 404, description: 'Not Found' }, 404));

  // overrideGlobalObjects:false — the fake shares the test process and must not swap global Request/Response.
  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1', overrideGlobalObjects: false }, () =>
      resolve(s as Server),
    );
  });
  const port = (server.address() as AddressInfo).port;

  return {
    apiRoot: `http://127.0.0.1:${port}`,
    token,
    port,
    bot,
    calls,
    pushUpdate: (update) => hub.push(update),
    sendUserMessage: (input) => userMessage(state, input),
    tapButton: (input) => tap(state, input),
    sendUserPhoto: (input) => userPhoto(state, files, input),
    sendUserDocument: (input) => userDocument(state, files, input),
    sendUserVoice: (input) => userVoice(state, files, input),
    downloads: files.downloads,
    uploads: files.uploads,
    addChat: (chat) => state.store.addChat(chat),
    messages: (chatId, o = {}) => state.store.list(chatId, o.includeDeleted),
    failNext(method, spec) {
      const key = (lookupMethod(method) ?? method).toLowerCase();
      const list = failures.get(key) ?? [];
      for (let i = 0; i < (spec.after ?? 0); i++) list.push(null);
      for (let i = 0; i < (spec.times ?? 1); i++)
        list.push({ status: spec.status, body: spec.body ?? defaultBody(spec.status) });
      failures.set(key, list);
    },
    holdNext(method, spec = {}) {
      const key = (lookupMethod(method) ?? method).toLowerCase();
      const list = holds.get(key) ?? [];
      for (let i = 0; i < (spec.after ?? 0); i++) list.push(null);
      const hold = new Hold();
      list.push(hold);
      holds.set(key, list);
      return { held: hold.arrived, dropped: hold.dropped, release: () => hold.release() };
    },
    rateLimit(method, share, retryAfter = 1) {
      storms.set((lookupMethod(method) ?? method).toLowerCase(), { share, retryAfter });
    },
    postWebhook: (update, o = {}) => {
      const full = typeof update.update_id === 'number' ? (update as TgUpdate) : hub.stamp(update);
      return hub.post(full, o.secretToken);
    },
    deliveries: hub.deliveries,
    webhookSettled: () => hub.settled(),
    heldPolls: () => hub.heldPolls(),
    commands: (o = {}) =>
      structuredClone(state.commands.get(commandKey({ scope: o.scope, language_code: o.languageCode })) ?? []),
    async close() {
      hub.releaseAll();
      await hub.settled().catch(() => undefined);
      server.closeAllConnections(); // grammy's keep-alive sockets would otherwise hold close() open
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}

/** A call held before it is carried out: released by the test, or dropped when its caller goes away. */
class Hold {
  #arrived!: () => void;
  #release!: () => void;
  #dropped!: () => void;
  readonly arrived = new Promise<void>((resolve) => (this.#arrived = resolve));
  readonly dropped = new Promise<void>((resolve) => (this.#dropped = resolve));
  readonly #released = new Promise<void>((resolve) => (this.#release = resolve));

  release(): void {
    this.#release();
  }

  /** True once released; false when `signal` aborted first (the call is then not carried out). */
  async wait(signal: AbortSignal): Promise<boolean> {
    this.#arrived();
    const gone = new Promise<false>((resolve) =>
      signal.aborted ? resolve(false) : signal.addEventListener('abort', () => resolve(false), { once: true }),
    );
    const carried = await Promise.race([this.#released.then(() => true), gone]);
    if (!carried) this.#dropped();
    return carried;
  }
}

function errorEnvelope(e: unknown): [number, Record<string, unknown>] {
  if (e instanceof TelegramApiError) {
    return [
      e.code,
      {
        ok: false,
        error_code: e.code,
        description: e.description,
        ...(e.parameters ? { parameters: e.parameters } : {}),
      },
    ];
  }
  // A bug in the fake: a 500 with the reason, so the test failure points here instead of timing out.
  return [
    500,
    { ok: false, error_code: 500, description: `Internal Server Error: fake-telegram: ${(e as Error).message}` },
  ];
}

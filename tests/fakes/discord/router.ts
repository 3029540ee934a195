// One place that every REST route goes through: auth, injected failures, body parsing and the call log.
// Routes are registered with their Discord-doc template, which is also the key for failNext/waitFor.
import { Hono, type Context } from 'hono';
import { AnswerHolds, type HeldAnswer } from '../answer-holds.ts';
import type { CallLog, Failures, Json } from './call-log.ts';

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
export type Handler = (c: Context, body: Json) => Response | Promise<Response>;

export const json = (status: number, body: Json, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
/** A path parameter; '' when the route has none by that name (hono types it as optional). */
export const param = (c: Context, name: string): string => c.req.param(name) ?? '';
export const noContent = (): Response => new Response(null, { status: 204 });

/** Discord's error envelope: `{ message, code }`. */
export const apiError = (status: number, code: number, message: string): Response => json(status, { message, code });

/** Discord's 50035 "Invalid Form Body"; `errors` is the nested `{ field: { _errors: [...] } }` tree. */
export const formError = (errors: Json): Response => json(400, { message: 'Invalid Form Body', code: 50035, errors });
export const fieldError = (code: string, message: string): Json => ({ _errors: [{ code, message }] });

export class Router {
  readonly app = new Hono();
  readonly #holds = new AnswerHolds();

  /**
   * The call on `route` after `after` more (default 0) is acted on — its effect stored, as Discord would — but
   * its answer is held until `release`: a post the platform took whose answer a stopped client never read.
   */
  holdAnswer(route: string, options: { after?: number } = {}): HeldAnswer {
    return this.#holds.hold(route, options);
  }

  constructor(
    private readonly log: CallLog,
    private readonly failures: Failures,
    private readonly token: string,
  ) {
    this.app.notFound(async (c) => {
      const res = apiError(404, 0, '404: Not Found');
      this.record(c, `${c.req.method} ${this.pathOf(c)}`, await readBody(c), res.status);
      return res;
    });
  }

  /**
   * `auth: false` for interaction callbacks and webhooks: Discord authenticates those by their token.
   * `route` overrides the log/failure key per request (one hono path serving `@original` and `:mid`).
   */
  on(
    method: Method,
    path: string,
    handler: Handler,
    opts: { auth?: boolean; route?: (c: Context) => string } = {},
  ): void {
    this.app.on(method, `/api/v10${path}`, async (c) => {
      const route = opts.route?.(c) ?? `${method} ${path}`;
      const body = await readBody(c);
      let res: Response;
      const failure = this.failures.take(route);
      if (opts.auth !== false && c.req.header('authorization') !== `Bot ${this.token}`) {
        res = apiError(401, 0, '401: Unauthorized');
      } else if (failure) {
        res = json(failure.status, failure.body, failure.headers);
      } else {
        res = await handler(c, body);
      }
      this.record(c, route, body, res.status); // after the handler: the state is already mutated
      await this.#holds.answer(route);
      return res;
    });
  }

  private pathOf(c: Context): string {
    return c.req.path.replace(/^\/api\/v10/, '');
  }

  private record(c: Context, route: string, body: Json, status: number): void {
    this.log.record({
      route,
      method: c.req.method,
      path: this.pathOf(c),
      params: c.req.param() as Record<string, string>,
      query: c.req.query(),
      body,
      headers: Object.fromEntries(c.req.raw.headers),
      status,
      at: Date.now(),
    });
  }
}

/** JSON bodies as-is; multipart (file uploads) as `payload_json` plus `_files` (name, type, bytes). */
async function readBody(c: Context): Promise<Json> {
  if (c.req.method === 'GET' || c.req.method === 'HEAD') return null;
  const type = c.req.header('content-type') ?? '';
  if (type.includes('multipart/form-data')) {
    const form = await c.req.parseBody({ all: true });
    const payload = typeof form.payload_json === 'string' ? JSON.parse(form.payload_json) : {};
    const uploads = Object.values(form)
      .flat()
      .filter((v): v is File => typeof v !== 'string');
    const files = await Promise.all(
      uploads.map(async (f) => ({ name: f.name, type: f.type, data: Buffer.from(await f.arrayBuffer()) })),
    );
    return { ...payload, _files: files };
  }
  const text = await c.req.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

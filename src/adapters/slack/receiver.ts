// Slack's Request URL inside Kazma's hono server: one route, `/slack/events`, takes the Events API,
// interactivity (button clicks) and slash commands. Each request is checked on its exact raw bytes
// (see signature.ts) before anything is parsed; a failure is a 401 and nothing reaches Bolt. The HTTP
// answer is given once Kazma recorded the request (its listeners record, then `ack()`), so a 200 always
// means "taken in"; the work carries on after it.
import type { App, Receiver, ReceiverEvent } from '@slack/bolt';
import type { Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { InFlight } from '../../core/chat/index.ts';
import { KazmaError } from '../../core/errors.ts';
import type { Logger } from '../../core/log/index.ts';
import { checkRequest } from './payload-schema.ts';
import { verifySlackSignature } from './signature.ts';

/** The path Kazma serves Slack's Request URL on (events, interactivity and slash commands). */
export const EVENTS_PATH = '/slack/events';

/** Options for {@link SlackHttpReceiver}. */
export interface SlackHttpReceiverOptions {
  signingSecret: string;
  logger: Logger;
  /** False before start and after stop: requests get 503 and Slack delivers them again later. */
  accepting: () => boolean;
  /** A request nobody acknowledged by then is answered 404, as Bolt's own receivers do; default 3001 ms. */
  ackTimeoutMs?: number;
  /** Clock seam for the timestamp window; default Date.now. */
  now?: () => number;
  /** Larger bodies are refused (413) unread; Slack's are a few KB. Default 1 MiB. */
  maxBodyBytes?: number;
}

/** A second `ack()` for one request (a listener bug). */
export class SlackDoubleAckError extends KazmaError {
  constructor() {
    super('slack_double_ack', 'a Slack request was acknowledged twice (or after its 3-second deadline)');
  }
}

type Body = Record<string, unknown>;

export class SlackHttpReceiver implements Receiver {
  readonly #o: SlackHttpReceiverOptions;
  readonly #inflight = new InFlight();
  #bolt: App | undefined;

  constructor(options: SlackHttpReceiverOptions) {
    this.#o = options;
  }

  init(app: App): void {
    this.#bolt = app;
  }

  // Kazma's HTTP server is started and stopped by the composition root; nothing to do here.
  start(): Promise<void> {
    return Promise.resolve();
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }

  /** Mounts the Request URL route (before the server listens), with the body capped before it is read. */
  mount(app: Hono): void {
    // A chunked body has no Content-Length to check: the cap counts bytes as they arrive and stops at once.
    const limit = bodyLimit({
      maxSize: this.#o.maxBodyBytes ?? 1024 * 1024,
      onError: (c) => c.text('body too large', 413),
    });
    app.post(EVENTS_PATH, limit, (c) => this.handle(c));
  }

  /** Resolves when every request dispatched so far has been fully processed by Bolt's listeners. */
  idle(): Promise<void> {
    return this.#inflight.idle();
  }

  async handle(c: Context): Promise<Response> {
    const raw = await c.req.text();
    const form = (c.req.header('content-type') ?? '').includes('application/x-www-form-urlencoded')
      ? new URLSearchParams(raw)
      : undefined;
    // Slack's certificate probe is unsigned by design: answer it and do nothing else.
    if (form?.get('ssl_check') === '1') return new Response(null, { status: 200 });
    const verdict = verifySlackSignature({
      secret: this.#o.signingSecret,
      rawBody: raw,
      nowMs: (this.#o.now ?? Date.now)(),
      timestamp: c.req.header('x-slack-request-timestamp'),
      signature: c.req.header('x-slack-signature'),
    });
    if (!verdict.ok) {
      this.#o.logger.warn({ reason: verdict.reason }, 'rejected a Slack request that failed the signature check');
      return new Response('invalid signature', { status: 401 });
    }
    const body = parseBody(raw, form);
    if (!body) return new Response('unreadable body', { status: 400 });
    if (body.type === 'url_verification') return Response.json({ challenge: body.challenge });
    if (!this.#o.accepting())
      return new Response('Kazma is not accepting Slack requests right now; retry later', { status: 503 });
    try {
      checkRequest(body);
    } catch (error) {
      this.#o.logger.warn({ err: error }, 'a malformed Slack request was refused with 400');
      return new Response((error as Error).message, { status: 400 });
    }
    return this.#dispatch(body, c);
  }

  #dispatch(body: Body, c: Context): Promise<Response> {
    const bolt = this.#bolt;
    if (!bolt) throw new Error('SlackHttpReceiver: init(app) was never called');
    let settle!: (response: Response) => void;
    const response = new Promise<Response>((resolve) => (settle = resolve));
    let answered = false;
    const answer = (r: Response): boolean => {
      if (answered) return false;
      answered = true;
      clearTimeout(timer);
      settle(r);
      return true;
    };
    const timer = setTimeout(() => {
      if (answer(new Response(null, { status: 404 })))
        this.#o.logger.warn({ type: body.type }, 'a Slack request was not acknowledged within 3 s');
    }, this.#o.ackTimeoutMs ?? 3001);
    // Bolt acknowledges an Events API request before its listeners run. That 200 would tell Slack the
    // event arrived before Kazma recorded it, so for events it waits: the listener reports through
    // `kazmaAck` (recorded → 200, not recorded → 5xx and Slack retries), and an event no listener took
    // is answered 200 when Bolt is done with it.
    const deferred = body.type === 'event_callback';
    const ack = async (reply?: unknown): Promise<void> => {
      if (deferred) return;
      if (!answer(ackResponse(reply))) throw new SlackDoubleAckError();
    };
    const kazmaAck: SlackAckControl = {
      recorded: () => void answer(new Response(null, { status: 200 })),
      failed: (status) =>
        void answer(
          new Response(status === 400 ? 'malformed payload' : 'could not record the request; retry later', { status }),
        ),
    };
    const retryNum = Number(c.req.header('x-slack-retry-num')) || undefined;
    const retryReason = c.req.header('x-slack-retry-reason');
    const event: ReceiverEvent = {
      body,
      ack,
      ...(retryNum !== undefined && { retryNum }),
      ...(retryReason !== undefined && { retryReason }),
      customProperties: { kazmaAck },
    };
    const work = bolt.processEvent(event).then(
      () => void (deferred && answer(new Response(null, { status: 200 }))),
      (error: unknown) => {
        this.#o.logger.error({ err: error, type: body.type }, 'handling a Slack request failed');
        answer(new Response(null, { status: 500 }));
      },
    );
    this.#inflight.track(work);
    return response;
  }
}

/**
 * How a listener tells the receiver whether its request was recorded (passed to Bolt listeners as
 * `context.kazmaAck`; absent in Socket Mode, where Bolt acknowledges the envelope itself).
 */
export interface SlackAckControl {
  recorded(): void;
  /** 400 for a malformed payload (retrying would not help), 503 when it could not be recorded. */
  failed(status: 400 | 503): void;
}

/** Events API bodies are JSON; interactivity is a form with a JSON `payload`; slash commands are a form. */
function parseBody(raw: string, form: URLSearchParams | undefined): Body | undefined {
  try {
    const parsed: unknown = form
      ? form.has('payload')
        ? JSON.parse(form.get('payload')!)
        : Object.fromEntries(form)
      : JSON.parse(raw);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Body) : undefined;
  } catch {
    return undefined;
  }
}

/** What `ack(reply)` sends: nothing, text, or JSON (e.g. a slash command's immediate answer). */
function ackResponse(reply: unknown): Response {
  if (reply === undefined || reply === '') return new Response(null, { status: 200 });
  if (typeof reply === 'string') return new Response(reply, { status: 200 });
  return Response.json(reply);
}

import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { z } from 'zod';
import { maskSecrets } from '../../core/secrets/index.ts';
import type { DecideOutcome, Gate, GatePage } from '../../core/approvals/index.ts';
import { type Decision, type GateState, DECISIONS, GATE_STATES } from '../../core/db/index.ts';
import { type Actor, visibleJson } from '../../core/surface/index.ts';
import { ApiTokens, type ApiCaller, type ApiTokenOptions } from './api-tokens.ts';

/** What the API needs from the core. */
export interface ApprovalsApiCore {
  list(filter: { states: GateState[]; page: GatePage }): Promise<Gate[]>;
  /**
   * Decides as `actor`, with no chat in front: a refusal or a late decision comes back in the outcome
   * only (the caller's HTTP response), never as a message in the gate's chat.
   */
  decide(input: { gateId: string; decision: Decision; actor: Actor; reason?: string }): Promise<DecideOutcome>;
}

/** Options for {@link approvalsApi}: the tokens (see {@link ApiTokenOptions}) and the core. */
export interface ApprovalsApiOptions extends ApiTokenOptions {
  core: ApprovalsApiCore;
  /** Configured secret values: a gate's arguments are masked with them, as its cards are. */
  secrets?: readonly string[];
}

/** Per request: who the bearer token says the caller is (set by the auth middleware). */
export type ApprovalsApiEnv = { Variables: { caller: ApiCaller } };

const decisionBody = z.strictObject({
  decision: z.enum(DECISIONS),
  reason: z.string().max(2000).optional(),
  /**
   * Kept so older callers still parse: it may only name the token's owner. The token says who decides;
   * naming anyone else is refused (403).
   */
  as: z.string().min(1).optional(),
});

/** The most approvals one page holds, and how many when `limit` is not given. */
const PAGE_MAX = 500;
const PAGE_DEFAULT = 100;

/** A page's `next`: where the following page starts (the last gate shown), opaque to the caller. */
const cursorOf = (gate: Gate): string =>
  Buffer.from(JSON.stringify([gate.createdAt.toISOString(), gate.gateId])).toString('base64url');

const cursor = z.string().transform((text, ctx) => {
  try {
    const [at, gateId] = z
      .tuple([z.iso.datetime(), z.string().min(1)])
      .parse(JSON.parse(Buffer.from(text, 'base64url').toString('utf8')));
    return { createdAt: new Date(at), gateId };
  } catch {
    ctx.addIssue({ code: 'custom', message: 'not a cursor: pass the `next` of the page before, as it came' });
    return z.NEVER;
  }
});

const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(PAGE_MAX).default(PAGE_DEFAULT),
  after: cursor.optional(),
});

/**
 * `GET /api/approvals?state=pending[&limit=100][&after=<next>]` and `POST /api/approvals/:id/decision`,
 * behind bearer tokens. A list comes oldest first, at most `limit` (default 100, at most 500) a page;
 * when more follow, the answer's `next` is the `after` of the next page.
 * Each operator's `access.operators[].api_token` reads and decides as that operator (actor platform
 * `api`, id = the operator's name), under the same rules as a tap (approvers, requester_may_approve);
 * the shared `http.api_token` only reads. A refusal is 403 and a losing decision 409 with the gate's
 * real state, answered to the caller alone.
 */
export function approvalsApi(options: ApprovalsApiOptions): Hono<ApprovalsApiEnv> {
  const app = new Hono<ApprovalsApiEnv>();
  const tokens = new ApiTokens(options);
  app.use('/api/*', async (c, next) => {
    const caller = tokens.identify(c.req.header('authorization'));
    if (!caller) {
      const hint = tokens.enabled
        ? 'send Authorization: Bearer <your access.operators[].api_token> (or http.api_token, which only reads)'
        : 'set access.operators[].api_token (reads and decides as that operator) or http.api_token (reads only) to ' +
          'enable the API';
      return c.json({ error: 'unauthorized', hint }, 401);
    }
    c.set('caller', caller);
    return next();
  });
  app.get('/api/approvals', async (c) => {
    const state = c.req.query('state') ?? 'pending';
    const states = state.split(',');
    const unknown = states.filter((s) => !(GATE_STATES as readonly string[]).includes(s));
    if (unknown.length)
      return c.json(
        { error: 'bad_request', message: `unknown state ${unknown.join(', ')}; one of ${GATE_STATES.join(', ')}` },
        400,
      );
    const page = pageQuery.safeParse({ limit: c.req.query('limit'), after: c.req.query('after') });
    if (!page.success)
      return c.json(
        { error: 'bad_request', message: page.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') },
        400,
      );
    const { limit, after } = page.data;
    // One more than asked: whether there is a next page.
    const gates = await options.core.list({
      states: states as GateState[],
      page: { limit: limit + 1, ...(after && { after }) },
    });
    const shown = gates.slice(0, limit);
    const last = shown.at(-1);
    return visible(c, {
      approvals: shown.map((gate) => publicGate(gate, options.secrets)),
      ...(gates.length > limit && last && { next: cursorOf(last) }),
    });
  });
  // A decision is a few hundred bytes; a larger body is refused before it is read.
  const limit = bodyLimit({
    maxSize: 16 * 1024,
    onError: (c) => c.json({ error: 'payload_too_large', message: 'a decision body is at most 16 KB' }, 413),
  });
  app.post('/api/approvals/:id/decision', limit, async (c) => {
    const caller = c.get('caller');
    if (caller.kind !== 'operator') {
      return c.json(
        {
          error: 'forbidden',
          message:
            'http.api_token may read approvals but not decide: decide with your own token ' +
            '(access.operators[].api_token)',
        },
        403,
      );
    }
    const raw = await c.req.json().catch(() => undefined);
    const body = decisionBody.safeParse(raw);
    if (!body.success) {
      return c.json(
        {
          error: 'bad_request',
          message: body.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; '),
        },
        400,
      );
    }
    if (body.data.as !== undefined && body.data.as !== caller.name) {
      return c.json(
        {
          error: 'forbidden',
          message:
            `as: this token belongs to ${caller.name}, and the API decides only as the token's owner (not as ` +
            `"${body.data.as}"); drop "as" or use ${body.data.as}'s own token`,
        },
        403,
      );
    }
    const outcome = await options.core.decide({
      gateId: c.req.param('id'),
      decision: body.data.decision,
      actor: { platform: 'api', id: caller.name, displayName: caller.name },
      ...(body.data.reason && { reason: body.data.reason }),
    });
    if (outcome.ok) return visible(c, { ok: true, approval: publicGate(outcome.gate, options.secrets) });
    // 202: one approval of several a policy asks was counted; the call runs once the last is given.
    // `replayed` needs an inbound event's key, which an API call never has: listed for the type's sake.
    const status = {
      unknown: 404,
      refused: 403,
      counted: 202,
      decided: 409,
      replayed: 409,
      reason_required: 422,
    } as const;
    return visible(
      c,
      {
        ok: false,
        error: outcome.reason,
        message: outcome.message,
        ...(outcome.gate && { approval: publicGate(outcome.gate, options.secrets) }),
      },
      status[outcome.reason],
    );
  });
  return app;
}

/**
 * A JSON answer that carries outside text (tool names, arguments): the same JSON, but a bidi override
 * or a zero-width character in it is written as an escape, so `curl` in a terminal shows it.
 */
function visible(c: Context, value: unknown, status: 200 | 202 | 404 | 403 | 409 | 422 = 200): Response {
  return c.body(visibleJson(value), status, { 'content-type': 'application/json; charset=UTF-8' });
}

/** A gate as the API shows it: its arguments masked as on its cards (a read-only token sees them too). */
function publicGate(gate: Gate, secrets: readonly string[] = []) {
  return {
    id: gate.gateId,
    state: gate.state,
    tool: gate.call.tool,
    args: maskSecrets(gate.call.args ?? {}, { secrets, byName: false }),
    tier: gate.call.tier,
    chat: gate.chat,
    requester: gate.requester,
    decision: gate.decision ?? null,
    decided_by: gate.decidedBy ?? null,
    decided_platform: gate.decidedPlatform ?? null,
    decided_at: gate.decidedAt?.toISOString() ?? null,
    created_at: gate.createdAt.toISOString(),
    expires_at: gate.expiresAt.toISOString(),
  };
}

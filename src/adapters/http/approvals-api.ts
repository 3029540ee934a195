import { timingSafeEqual } from 'node:crypto';
import { Hono } from 'hono';
import { z } from 'zod';
import type { DecideOutcome, Gate, GateState } from '../../core/approvals/port.ts';
import { GATE_STATES } from '../../core/approvals/port.ts';
import type { Actor } from '../../core/chat/types.ts';

/** What the API needs from the core. */
export interface ApprovalsApiCore {
  list(filter: { states: GateState[] }): Promise<Gate[]>;
  decide(input: { gateId: string; decision: 'once' | 'always' | 'deny'; actor: Actor; reason?: string }): Promise<DecideOutcome>;
  /** The operator an API caller acts as when the body names none. */
  defaultOperator(): string | undefined;
}

const decisionBody = z.strictObject({
  decision: z.enum(['once', 'always', 'deny']),
  reason: z.string().max(2000).optional(),
  /** The operator (access.operators[].name) the caller decides as; default the first operator. */
  as: z.string().min(1).optional(),
});

/**
 * `GET /api/approvals?state=pending` and `POST /api/approvals/:id/decision`, behind a bearer token
 * (http.api_token). A losing decision is 409 with the gate's real state; the same rules as a tap apply.
 */
export function approvalsApi(options: { token: string; core: ApprovalsApiCore }): Hono {
  const app = new Hono();
  const expected = Buffer.from(`Bearer ${options.token}`);
  app.use('/api/*', async (c, next) => {
    const given = Buffer.from(c.req.header('authorization') ?? '');
    const ok = options.token !== '' && given.length === expected.length && timingSafeEqual(given, expected);
    if (!ok) return c.json({ error: 'unauthorized', hint: options.token ? 'send Authorization: Bearer <http.api_token>' : 'set http.api_token to enable the API' }, 401);
    return next();
  });
  app.get('/api/approvals', async (c) => {
    const state = c.req.query('state') ?? 'pending';
    const states = state.split(',');
    const unknown = states.filter((s) => !(GATE_STATES as readonly string[]).includes(s));
    if (unknown.length) return c.json({ error: 'bad_request', message: `unknown state ${unknown.join(', ')}; one of ${GATE_STATES.join(', ')}` }, 400);
    return c.json({ approvals: (await options.core.list({ states: states as GateState[] })).map(publicGate) });
  });
  app.post('/api/approvals/:id/decision', async (c) => {
    const raw = await c.req.json().catch(() => undefined);
    const body = decisionBody.safeParse(raw);
    if (!body.success) {
      return c.json({ error: 'bad_request', message: body.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ') }, 400);
    }
    const operator = body.data.as ?? options.core.defaultOperator();
    if (!operator) return c.json({ error: 'bad_request', message: 'no operator is configured to decide as (access.operators)' }, 400);
    const outcome = await options.core.decide({
      gateId: c.req.param('id'),
      decision: body.data.decision,
      actor: { platform: 'api', id: operator, displayName: operator },
      ...(body.data.reason && { reason: body.data.reason }),
    });
    if (outcome.ok) return c.json({ ok: true, approval: publicGate(outcome.gate) });
    const status = outcome.reason === 'unknown' ? 404 : outcome.reason === 'refused' ? 403 : 409;
    return c.json({ ok: false, error: outcome.reason, message: outcome.message, ...(outcome.gate && { approval: publicGate(outcome.gate) }) }, status);
  });
  return app;
}

function publicGate(gate: Gate) {
  return {
    id: gate.gateId,
    state: gate.state,
    tool: gate.call.tool,
    args: gate.call.args,
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

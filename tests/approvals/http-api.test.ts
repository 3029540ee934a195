// The approvals HTTP API with per-operator tokens: the bearer token names the operator who decides
// (there is no deciding "as" someone else), the approval rules apply to that operator, the shared
// http.api_token only reads, and a refused or late API decision is answered to the caller alone —
// nothing reaches the gate's chat. Driven through the real Hono app (app.request) and the real core.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { approvalsApi } from '../../src/adapters/http/approvals-api.ts';
import { startTestCore, type TestCore } from '../agent/helpers/core.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { auditCounts, launch, launchTool, only } from './helpers.ts';

const MAYA_TOKEN = 'maya-api-token-0123456789';
const ANA_TOKEN = 'ana-api-token-9876543210';
const READ_TOKEN = 'shared-read-token-abcdef';
const MAYA = { name: 'maya', telegram: '42', api_token: MAYA_TOKEN };
const ANA = { name: 'ana', telegram: '43', api_token: ANA_TOKEN };

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});

interface Setup {
  operators: Array<Record<string, string>>;
  requesterMayApprove?: boolean;
  readToken?: string;
}

describe('approvals HTTP API', () => {
  let t: TestCore | undefined;
  let tool: ReturnType<typeof launchTool>;
  let app: ReturnType<typeof approvalsApi>;

  /** Starts a core with these operators and wires the API as src/main.ts does. */
  async function start(setup: Setup): Promise<TestCore> {
    tool = launchTool();
    t = await startTestCore({
      baseURL: llm.baseURL,
      tools: [tool.tool],
      config: {
        access: { operators: setup.operators },
        approvals: { requester_may_approve: setup.requesterMayApprove ?? true },
        http: { api_token: setup.readToken ?? '' },
      },
    });
    const core = t.core;
    app = approvalsApi({
      readToken: setup.readToken ?? '',
      operators: setup.operators.map((o) => ({ name: o.name!, api_token: o.api_token ?? '' })),
      core: { list: (filter) => core.approvals.list(filter), decide: (input) => core.decider.decide(input) },
    });
    return t;
  }

  /** Opens a gate asked for by maya on Telegram; returns its id. */
  async function gateByMaya(core: TestCore): Promise<string> {
    llm.script(launch({ target: 'mars' }));
    await core.say('launch to mars');
    return only(await core.core.approvals.list()).gateId;
  }

  const request = (path: string, token: string | undefined, body?: unknown) =>
    app.request(path, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { ...(token !== undefined && { authorization: `Bearer ${token}` }), 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
  const decide = (gateId: string, token: string, body: Record<string, unknown>) =>
    request(`/api/approvals/${gateId}/decision`, token, body);

  /** What the chat has seen besides cards: public messages and private replies. */
  const chatTraffic = (core: TestCore) => ({
    sent: core.surface.texts().length,
    privately: core.surface.privately.length,
  });

  beforeEach(() => {
    llm.requests.length = 0;
  });
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it("shows a gate's arguments masked as its cards are, to every token", async () => {
    const core = await start({ operators: [MAYA, ANA], readToken: READ_TOKEN });
    llm.script(
      launch({ target: 'https://bob:hunter2pw@launch.example/pad', token: 'sk-planted-0123456789abcdefghij' }),
    );
    await core.say('launch it');
    const card = core.surface.openCard()!;
    expect(JSON.stringify(card.card)).not.toContain('hunter2pw');
    for (const token of [READ_TOKEN, ANA_TOKEN]) {
      const listed = await request('/api/approvals?state=pending', token);
      const body = await listed.text();
      // Before: the model's raw arguments, password and key included, to anyone holding the read-only token.
      expect(body).not.toContain('hunter2pw');
      expect(body).not.toContain('planted-0123456789');
      expect(JSON.parse(body)).toMatchObject({
        // The key is hidden for its form (`sk-…`), not for the field's name.
        approvals: [{ args: { target: 'https://bob:•••@launch.example/pad', token: 'sk-•••' } }],
      });
    }
  });

  it('lists in pages: at most `limit`, oldest first, `next` until the last, no gate twice', async () => {
    const core = await start({ operators: [MAYA, ANA], readToken: READ_TOKEN });
    // Each new message supersedes the question before it: four superseded gates and one pending.
    for (let i = 0; i < 5; i++) {
      llm.script(launch({ target: `pad ${i}` }));
      await core.say(`launch ${i}`);
    }
    type Page = { approvals: Array<{ id: string; args: { target: string } }>; next?: string };
    const pages: Page[] = [];
    let path: string | undefined = '/api/approvals?state=superseded,pending&limit=2';
    while (path) {
      const answer = await request(path, READ_TOKEN);
      expect(answer.status).toBe(200);
      const page = (await answer.json()) as Page;
      pages.push(page);
      path = page.next ? `/api/approvals?state=superseded,pending&limit=2&after=${page.next}` : undefined;
    }
    expect(pages.map((p) => p.approvals.length)).toEqual([2, 2, 1]);
    expect(pages.flatMap((p) => p.approvals.map((a) => a.args.target))).toEqual([
      'pad 0',
      'pad 1',
      'pad 2',
      'pad 3',
      'pad 4',
    ]);

    // Without a limit: the default page (all five fit), and no `next`.
    const whole = (await (await request('/api/approvals?state=superseded,pending', READ_TOKEN)).json()) as Page;
    expect(whole.approvals).toHaveLength(5);
    expect(whole.next).toBeUndefined();

    for (const [query, key] of [
      ['limit=0', 'limit'],
      ['limit=501', 'limit'],
      ['limit=ten', 'limit'],
      ['after=not-a-cursor', 'after'],
    ] as const) {
      const refused = await request(`/api/approvals?state=pending&${query}`, READ_TOKEN);
      expect(refused.status, query).toBe(400);
      expect(((await refused.json()) as { message: string }).message, query).toContain(key);
    }
  });

  it('decides as the operator who owns the token', async () => {
    const core = await start({ operators: [MAYA, ANA] });
    const gateId = await gateByMaya(core);

    const listed = await request('/api/approvals?state=pending', ANA_TOKEN);
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { approvals: Array<{ id: string }> }).approvals.map((a) => a.id)).toEqual([
      gateId,
    ]);

    const decided = await decide(gateId, ANA_TOKEN, { decision: 'once' });
    expect(decided.status).toBe(200);
    expect(((await decided.json()) as { approval: unknown }).approval).toMatchObject({
      decided_by: 'ana',
      decided_platform: 'api',
    });
    await core.delivered();
    expect(tool.runs).toEqual([{ target: 'mars' }]);
    expect(core.surface.cards[0]!.edits.at(-1)?.footer).toMatch(/^Approved once by ana on the API at \d\d:\d\d UTC$/);
  });

  it('refuses a token deciding "as" another operator (403), and decides nothing', async () => {
    const core = await start({ operators: [MAYA, ANA], requesterMayApprove: false });
    const gateId = await gateByMaya(core);
    const before = chatTraffic(core);

    // maya asked; she may not approve her own call, and naming ana does not make her ana.
    const impersonating = await decide(gateId, MAYA_TOKEN, { decision: 'once', as: 'ana' });
    expect(impersonating.status).toBe(403);
    const body = (await impersonating.json()) as { error: string; message: string };
    expect(body.error).toBe('forbidden');
    expect(body.message).toContain('as');
    expect(body.message).toContain('maya');

    // Naming oneself is allowed, and then the real rule applies: the requester may not approve.
    const self = await decide(gateId, MAYA_TOKEN, { decision: 'once', as: 'maya' });
    expect(self.status).toBe(403);
    expect(((await self.json()) as { message: string }).message).toContain('requester_may_approve is false');

    expect((await core.core.approvals.get(gateId))?.state).toBe('pending');
    expect(tool.runs).toEqual([]);
    expect(chatTraffic(core)).toEqual(before);
  });

  it('the only operator cannot approve their own call through the API when requester_may_approve is false; the chat hears nothing', async () => {
    const core = await start({ operators: [MAYA], requesterMayApprove: false });
    const gateId = await gateByMaya(core);
    const before = chatTraffic(core);

    const refused = await decide(gateId, MAYA_TOKEN, { decision: 'once' });
    expect(refused.status).toBe(403);
    expect((await refused.json()) as { error: string; message: string }).toMatchObject({
      error: 'refused',
      message: expect.stringContaining('approvals.requester_may_approve is false'),
    });
    await core.delivered();
    expect((await core.core.approvals.get(gateId))?.state).toBe('pending');
    expect(await auditCounts(core.database.db, gateId)).toEqual({ refused: 1 });
    expect(tool.runs).toEqual([]);
    expect(chatTraffic(core)).toEqual(before);
    expect(core.surface.cards[0]!.edits).toEqual([]);
  });

  it('answers a late decision with 409 to the caller only; a late tap in the chat is still told privately', async () => {
    const core = await start({ operators: [MAYA, ANA] });
    const gateId = await gateByMaya(core);
    expect((await decide(gateId, ANA_TOKEN, { decision: 'deny', reason: 'not today' })).status).toBe(200);
    await core.delivered();
    const before = chatTraffic(core);

    const late = await decide(gateId, MAYA_TOKEN, { decision: 'once' });
    expect(late.status).toBe(409);
    expect(((await late.json()) as { message: string }).message).toMatch(
      /^Already decided: Denied by ana on the API at \d\d:\d\d UTC: not today\.$/,
    );
    await core.delivered();
    expect(chatTraffic(core)).toEqual(before);

    // A tap has a chat in front of it: the loser there is still answered, privately.
    await core.tap('once', { card: core.surface.cards[0]!.card });
    expect(core.surface.privately.map((p) => p.text)).toEqual([
      expect.stringMatching(/^Already decided: Denied by ana on the API/),
    ]);
    expect(tool.runs).toEqual([]);
  });

  it('lets the shared http.api_token read but not decide', async () => {
    const core = await start({ operators: [MAYA, ANA], readToken: READ_TOKEN });
    const gateId = await gateByMaya(core);

    const listed = await request('/api/approvals', READ_TOKEN);
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { approvals: unknown[] }).approvals).toHaveLength(1);

    const decided = await decide(gateId, READ_TOKEN, { decision: 'once', as: 'ana' });
    expect(decided.status).toBe(403);
    const body = (await decided.json()) as { error: string; message: string };
    expect(body.error).toBe('forbidden');
    expect(body.message).toContain('access.operators[].api_token');
    expect((await core.core.approvals.get(gateId))?.state).toBe('pending');
    expect(await auditCounts(core.database.db, gateId)).toEqual({});
  });

  it('answers 401 to a missing or unknown token, and says how to enable the API when no token is set', async () => {
    await start({ operators: [MAYA] });
    expect((await request('/api/approvals', undefined)).status).toBe(401);
    expect((await request('/api/approvals', 'not-a-token')).status).toBe(401);
    expect((await request('/api/approvals', `${MAYA_TOKEN}x`)).status).toBe(401);
    expect((await request('/api/approvals', MAYA_TOKEN)).status).toBe(200);
    await t!.close();

    await start({ operators: [{ name: 'maya', telegram: '42' }] });
    const closed = await request('/api/approvals', '');
    expect(closed.status).toBe(401);
    expect(((await closed.json()) as { hint: string }).hint).toContain('access.operators[].api_token');
  });
});

// deny_reason: required on the web page (its real Hono app on a real Kazma, a question asked on the fake
// Telegram): the Deny form's Reason field says it is required; a Deny without a reason is refused with a clear
// message and changes nothing; the Deny with its reason settles the question, and the model gets the reason.
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../../contract/support.ts';
import { startFakeLlm } from '../../fakes/llm-server.ts';
import { startFakeTelegram } from '../../fakes/telegram/index.ts';
import { startAssembled } from '../../helpers/assembled.ts';
import { MAYA } from '../telegram/harness.ts';

const MAYA_TOKEN = 'maya-web-token-0123456789abcdef';
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const cookieOf = (answer: Response) => /kazma_ui=([^;]+)/.exec(answer.headers.get('set-cookie') ?? '')?.[1];
const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1];

describe('a required deny reason on the web page', () => {
  it('required deny reason reaches the model: a Deny without one is refused, with one it denies', async () => {
    const [llm, telegram] = await Promise.all([startFakeLlm(), startFakeTelegram()]);
    cleanup.push(
      () => llm.close(),
      () => telegram.close(),
    );
    const k = await startAssembled({
      model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 1 },
      access: { operators: [{ name: 'Maya', telegram: String(MAYA.id), api_token: MAYA_TOKEN }] },
      approvals: { policies: [{ name: 'careful', match: { tools: ['write_file'] }, deny_reason: 'required' }] },
      telegram: { enabled: true, token: telegram.token, api_root: telegram.apiRoot },
    });
    cleanup.push(() => k.close());
    llm.script({ toolCalls: [{ name: 'write_file', args: { path: 'note.txt', content: 'x' } }] });
    telegram.sendUserMessage({ chatId: MAYA.id, from: MAYA, text: 'write the note' });
    const [gate] = await eventually(
      () => k.kazma.core.approvals.list(),
      (gates) => (gates.length === 1 ? gates : undefined),
      'the question',
    );

    const base = `http://127.0.0.1:${k.kazma.http.port}`;
    const go = (path: string, init: RequestInit = {}) => fetch(`${base}${path}`, { redirect: 'manual', ...init });
    const signedIn = await go('/ui/sign-in', {
      method: 'POST',
      body: new URLSearchParams({ token: MAYA_TOKEN }),
      headers: { origin: base },
    });
    const cookie = `kazma_ui=${cookieOf(signedIn)}`;
    const page = await (await go('/ui/approvals', { headers: { cookie } })).text();
    expect(page).toContain('placeholder="Reason (required by the policy careful)"');
    expect(page).toMatch(/<input[^>]*name="reason"[^>]*required/);
    const csrf = csrfOf(page)!;
    const deny = (reason?: string) =>
      go(`/ui/approvals/${gate!.gateId}`, {
        method: 'POST',
        headers: { cookie, origin: base },
        body: new URLSearchParams({ _csrf: csrf, decision: 'deny', ...(reason !== undefined && { reason }) }),
      });

    for (const missing of [undefined, '   ']) {
      const refused = await deny(missing);
      expect(refused.status).toBe(409);
      expect(await refused.text()).toContain(
        'A Deny of write_file needs a reason (policy careful): write it in the Reason field. Nothing was decided.',
      );
      expect((await k.kazma.core.approvals.get(gate!.gateId))!.state).toBe('pending');
    }
    expect(llm.requests).toHaveLength(1);

    const reason = 'not on a Friday 🙅 — ليس اليوم';
    const denied = await deny(reason);
    expect(denied.status).toBe(200);
    expect(await denied.text()).toContain(`Denied: write_file (gate ${gate!.gateId}).`);
    await eventually(
      async () => llm.requests.length,
      (n) => n === 2,
      'the turn resumed with the denial',
    );
    await k.settled();
    const results = llm.requests[1]!.messages!.filter((m) => m.role === 'tool').map((m) => String(m.content));
    expect(results).toEqual([expect.stringContaining(reason)]);
    expect(await k.kazma.core.approvals.get(gate!.gateId)).toMatchObject({
      state: 'settled',
      decision: 'deny',
      denyReason: reason,
      decidedBy: 'Maya',
    });
  });
});

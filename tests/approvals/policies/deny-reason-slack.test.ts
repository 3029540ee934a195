// deny_reason: required on Slack (the fake Slack): the Deny button opens a modal (views.open with the click's
// trigger_id) and decides nothing; a blank reason is refused in the modal itself; the submitted reason denies the
// call once, through the same first-decision-wins path as a tap, and the model gets it.
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../../contract/support.ts';
import { startFakeLlm } from '../../fakes/llm-server.ts';
import { type StoredMessage, startFakeSlack } from '../../fakes/slack/index.ts';
import { startAssembled } from '../../helpers/assembled.ts';
import { clickDecision } from '../../adapters/slack/contract-driver.ts';
import { dmOf, MAYA } from '../../adapters/slack/harness.ts';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

describe('a required deny reason on Slack', () => {
  it('required deny reason reaches the model: the Deny opens a modal, its reason denies the call', async () => {
    const [llm, slack] = await Promise.all([startFakeLlm(), startFakeSlack()]);
    cleanup.push(
      () => llm.close(),
      () => slack.close(),
    );
    const k = await startAssembled({
      model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 1 },
      access: { operators: [{ name: 'Maya', slack: MAYA.id }] },
      approvals: { policies: [{ name: 'careful', match: { tools: ['write_file'] }, deny_reason: 'required' }] },
      slack: { enabled: true, token: slack.botToken, signing_secret: slack.signingSecret, api_url: slack.apiUrl },
    });
    cleanup.push(() => k.close());
    const url = `http://127.0.0.1:${k.kazma.http.port}/slack/events`;
    const dm = dmOf(MAYA);

    llm.script({ toolCalls: [{ name: 'write_file', args: { path: 'note.txt', content: 'x' } }] });
    await slack.signer.sendMessage(url, { channel: dm, user: MAYA.id, text: 'write the note' });
    const withButtons = (ms: StoredMessage[]) => ms.find((m) => m.blocks?.some((b) => b.type === 'actions'));
    const card = await eventually(async () => slack.messages(dm), withButtons, 'the card');

    expect(await clickDecision({ fake: slack, url }, MAYA, `slack:${dm}`, card.ts, 'deny')).toBe(200);
    const opened = await slack.calls.waitFor('views.open', () => true, 10_000);
    expect(opened.response).toMatchObject({ ok: true });
    const [modal] = slack.views;
    expect(modal).toMatchObject({ user: MAYA.id, view: { type: 'modal', title: { text: 'Why?' } } });
    const [gate] = await k.kazma.core.approvals.list();
    expect(gate!.state).toBe('pending'); // opening the modal decided nothing

    const blank = await slack.signer.submitView(url, { viewId: modal!.id, user: MAYA.id, values: { reason: '   ' } });
    expect(blank.status).toBe(200);
    expect(JSON.parse(blank.body)).toMatchObject({ response_action: 'errors', errors: { reason: /reason/ } });
    expect(modal!.closed).toBe(false);
    expect((await k.kazma.core.approvals.get(gate!.gateId))!.state).toBe('pending');

    const reason = 'not on a Friday 🙅 — ليس اليوم';
    const sent = await slack.signer.submitView(url, { viewId: modal!.id, user: MAYA.id, values: { reason } });
    expect(sent).toMatchObject({ status: 200, body: '' });
    expect(modal!.closed).toBe(true);
    await eventually(
      async () => llm.requests.length,
      (n) => n === 2,
      'the turn resumed with the denial',
    );
    await k.settled();
    const results = llm.requests[1]!.messages!.filter((m) => m.role === 'tool').map((m) => String(m.content));
    expect(results).toEqual([expect.stringContaining(reason)]);
    const settled = await k.kazma.core.approvals.get(gate!.gateId);
    expect(settled).toMatchObject({ state: 'settled', decision: 'deny', denyReason: reason, decidedBy: 'Maya' });
    const edited = slack.messages(dm).find((m) => m.ts === card.ts)!;
    expect(edited.blocks?.some((b) => b.type === 'actions')).toBe(false);
    expect(edited.text).toContain(reason);
  });
});

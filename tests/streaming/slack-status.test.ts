// Slack shows no "typing…" to bots; in a thread, `assistant.threads.setStatus` says "is thinking…" while
// a turn runs. A workspace that refuses the method (unknown_method, not_allowed, …) is not asked again.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { dmOf, MAYA, startSlackHarness, type SlackHarness } from '../adapters/slack/harness.ts';

let llm: FakeLlm;
let h: SlackHarness | undefined;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const DM = dmOf(MAYA);

/** Maya writes in the thread under her first message; returns that thread's ts. */
async function askInThread(harness: SlackHarness, text: string, thread?: string): Promise<string> {
  if (!thread) {
    await harness.fake.signer.sendMessage(harness.url, { channel: DM, user: MAYA.id, text: 'a new thread' });
    await harness.settled();
    thread = harness.fake.messages(DM)[0]!.ts;
  }
  await harness.fake.signer.sendMessage(harness.url, { channel: DM, user: MAYA.id, text, thread_ts: thread });
  await harness.settled();
  return thread;
}

it('sets the thread\'s status to "is thinking…" while a turn runs', async () => {
  h = await startSlackHarness({ modelBaseUrl: llm.baseURL });
  const thread = await askInThread(h, 'how are you?');
  const set = h.fake.calls.of('assistant.threads.setStatus').filter((c) => c.ok);
  expect(set.map((c) => c.args)).toContainEqual({ channel_id: DM, thread_ts: thread, status: 'is thinking…' });
});

it('a workspace that refuses setStatus is not asked again', async () => {
  h = await startSlackHarness({ modelBaseUrl: llm.baseURL });
  h.fake.failNext('assistant.threads.setStatus', { status: 200, body: { ok: false, error: 'not_allowed' }, times: 9 });
  const thread = await askInThread(h, 'one');
  await askInThread(h, 'two', thread);
  expect(h.fake.calls.of('assistant.threads.setStatus')).toHaveLength(1);
  // The answers came all the same.
  expect(
    h.fake
      .messages(DM)
      .filter((m) => m.thread_ts === thread)
      .map((m) => m.text),
  ).toContain('echo: two');
});

// Replies through the outbox when Telegram refuses them.
// - A reply longer than the limit goes out in parts. When a later part is refused (a long 429, a refusal
//   the client does not retry itself), the outbox retries it; before, the retry sent every part again
//   from the first, so the chat showed the opening part twice. Now each part the platform took is
//   recorded before the next is sent, and the retry sends only the rest: every part once, in order.
// - A refusal for good (the bot was blocked) marks the reply failed at once, with the reason, instead of
//   retrying it for ever.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../fakes/llm-server.ts';
import { longReply } from '../../contract/support.ts';
import { eventually } from '../../helpers/eventually.ts';
import { MAYA, startHarness, type Harness } from './harness.ts';
import { outbox } from '../../../src/core/db/schema/outbox.ts';

let llm: FakeLlm;
let h: Harness | undefined;
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

it('a long reply whose second part is refused once shows every part once, in order', async () => {
  h = await startHarness({ modelBaseUrl: llm.baseURL });
  const reply = longReply(4096);
  llm.script({ text: reply.markdown });
  // The reply's first sendMessage goes through; its second is refused once, with a wait too long to
  // spend inside the send (the client's own retries take waits up to a minute), so the outbox retries it.
  h.fake.failNext('sendMessage', {
    status: 429,
    body: {
      ok: false,
      error_code: 429,
      description: 'Too Many Requests: retry after 120',
      parameters: { retry_after: 120 },
    },
    after: 1,
  });
  h.fake.sendUserMessage({ from: MAYA, chatId: MAYA.id, text: 'tell me a long story' });
  const shown = await eventually(
    () => h!.fake.messages(MAYA.id).map((m) => m.text),
    (texts) => (texts.some((t) => t.includes(reply.lastLine)) ? texts : undefined),
    'the last line',
    { timeoutMs: 30_000 },
  );
  await h.settled();
  const texts = h.fake.messages(MAYA.id).map((m) => m.text);
  expect(texts.length).toBeGreaterThanOrEqual(3);
  expect(new Set(texts).size).toBe(texts.length);
  expect(texts.flatMap((t) => t.split('\n')).filter((line) => line !== '')).toEqual(reply.lines);
  expect(shown[0]).toBe(texts[0]);
  // The refused attempt was made: this is the retry path, not a lucky first try.
  expect(h.fake.calls.of('sendMessage').filter((c) => !c.ok)).toHaveLength(1);
});

it('a reply refused for good (the user blocked the bot) is marked failed at once, not retried, and says why', async () => {
  h = await startHarness({ modelBaseUrl: llm.baseURL });
  h.fake.failNext('sendMessage', {
    status: 403,
    body: { ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' },
  });
  h.say({ chatId: MAYA.id, from: MAYA, text: 'hello' });
  await h.settled();
  const rows = (await h.database.db.select().from(outbox)).filter((row) => row.destination === `telegram:${MAYA.id}`);
  // Before: pending, dispatched for 8 retries, then (each sweep) for ever.
  expect(rows.map((row) => [row.state, row.attempts])).toEqual([['failed', 1]]);
  expect(rows[0]!.lastError).toMatch(/blocked/);
  await new Promise((r) => setTimeout(r, 700)); // a retry's backoff would have run by now
  // The reply was tried once. (A sweep may meanwhile have posted the incident card about it: that is the
  // failure being told, not the reply retried.)
  expect(h.fake.calls.of('sendMessage').filter((c) => String(c.body.text).includes('echo: hello'))).toHaveLength(1);
  // Unblocked, the next message is answered as usual.
  h.say({ chatId: MAYA.id, from: MAYA, text: 'again' });
  await h.settled();
  expect(
    h.fake
      .messages(MAYA.id)
      .map((m) => m.text)
      .filter((text) => text.startsWith('echo:')),
  ).toEqual(['echo: again']);
});

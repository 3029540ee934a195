// Per-chat order under a storm of rate limits. Telegram refuses a share of sendMessage calls with a 429
// and a retry_after; the client is set to retry none itself, so every refused reply goes back to the
// outbox for the worker's retry after the wait Telegram asked for. Before, the chat's next replies were
// sent at once meanwhile, overtaking it (17 of 1,000 replies out of order in a storm). Now a reply held
// back by a 429 holds back every later post to its chat: each chat shows its replies in the order its
// messages were sent, each once.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { eventually } from '../helpers/eventually.ts';
import { LINA, MAYA, OMAR, startHarness, type Harness } from '../adapters/telegram/harness.ts';

const PER_CHAT = 15;
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

it('a 429 for one reply holds back the later replies of its chat: every chat in order, each reply once', {
  timeout: 180_000,
}, async () => {
  h = await startHarness({ modelBaseUrl: llm.baseURL, retry: { maxRetryAttempts: 0 } });
  const people = [MAYA, OMAR, LINA];
  h.fake.rateLimit('sendMessage', 0.3);
  const sent = new Map<number, string[]>(people.map((p) => [p.id, []]));
  for (let i = 1; i <= PER_CHAT; i++)
    for (const person of people) {
      const text = `${person.first_name} ${i}`;
      sent.get(person.id)!.push(`echo: ${text}`);
      h.say({ chatId: person.id, from: person, text });
    }
  const replies = (id: number) => h!.fake.messages(id).map((m) => m.text);
  await eventually(
    () => people.map((p) => replies(p.id).length),
    (counts) => counts.every((n) => n >= PER_CHAT) || undefined,
    `${PER_CHAT} replies in each chat`,
    { timeoutMs: 150_000, intervalMs: 100 },
  );
  h.fake.rateLimit('sendMessage', 0);
  await h.settled();
  const refused = h.fake.calls.of('sendMessage').filter((c) => c.status === 429).length;
  expect(refused, 'the storm refused some replies').toBeGreaterThan(5);
  for (const person of people) expect(replies(person.id), `${person.first_name}'s chat`).toEqual(sent.get(person.id));
});

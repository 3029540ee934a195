// The model's event stream may be cut anywhere: inside a multi-byte character (Arabic, emoji, a ZWJ
// sequence), inside a tool call's JSON delta, inside an event line. The fake model writes its whole
// stream one byte per write; the answer and the tool call's arguments must come out whole.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { MAYA, startHarness, type Harness } from '../adapters/telegram/harness.ts';

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

const SAMPLE = 'مرحبا بالعالم — 👨‍👩‍👧‍👦 family, 🇸🇦 flag, é, 中文, and `code`.';

it('an answer and a tool call streamed one byte per write arrive whole', async () => {
  h = await startHarness({ modelBaseUrl: llm.baseURL, config: { streaming: { start_after: '0ms' } } });
  const args = { note: SAMPLE, nested: { list: ['ا', '👍🏽'] } };
  llm.script(
    { text: `${SAMPLE} (checking)`, toolCalls: [{ name: 'no_such_tool', args }], pacing: { bytes: true } },
    { text: SAMPLE, pacing: { bytes: true } },
  );
  h.say({ chatId: MAYA.id, from: MAYA, text: 'split me' });
  await h.settled();
  // An unknown tool asks first: its card shows the arguments exactly as the model wrote them.
  const card = h.fake.messages(MAYA.id).at(-1)!.text;
  expect(card).toContain(JSON.stringify(args, null, 1));
  const gate = /Gate: (\S+)/.exec(card)![1]!;
  h.say({ chatId: MAYA.id, from: MAYA, text: `/deny ${gate} not now` });
  await h.settled();
  // Both calls were streamed.
  expect(llm.requests.slice(-2).map((r) => r.stream)).toEqual([true, true]);
  // The tool call came back to the model exactly as written: arguments parsed from split JSON deltas.
  const echoed = llm.requests.at(-1)!.messages!.find((m) => m.role === 'assistant') as unknown as {
    content: unknown;
    tool_calls: Array<{ function: { name: string; arguments: string } }>;
  };
  expect(echoed.tool_calls[0]!.function.name).toBe('no_such_tool');
  expect(JSON.parse(echoed.tool_calls[0]!.function.arguments)).toEqual(args);
  expect(echoed.content).toBe(`${SAMPLE} (checking)`);
  // The answers, each its own message, every character intact (the code span rendered as code).
  const plain = SAMPLE.replaceAll('`', '');
  const texts = h.fake.messages(MAYA.id).map((m) => m.text);
  expect(texts[0]).toBe(`${plain} (checking)`);
  expect(texts).toContain(plain);
});

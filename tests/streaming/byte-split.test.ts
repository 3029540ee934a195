// The model's event stream may be cut anywhere: inside a multi-byte character (Arabic, emoji, a ZWJ
// sequence), inside a tool call's JSON delta, inside an event line. The fake model writes its whole
// stream one byte per write, in both providers' formats (OpenAI-compatible chunks; Anthropic's Messages
// events); the answer and the tool call's arguments must come out whole.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type ChatRequestBody, type FakeLlm } from '../fakes/llm-server.ts';
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

/** What the model was sent back of its own tool-calling message: its words, the call's name and arguments. */
type Echo = { text: unknown; name: string; args: unknown };

const PROVIDERS = {
  openai: {
    model: () => ({ name: 'fake-model', base_url: llm.baseURL, max_retries: 1 }),
    echoed(body: ChatRequestBody): Echo {
      const m = body.messages!.find((m) => m.role === 'assistant') as unknown as {
        content: unknown;
        tool_calls: Array<{ function: { name: string; arguments: string } }>;
      };
      const call = m.tool_calls[0]!.function;
      return { text: m.content, name: call.name, args: JSON.parse(call.arguments) };
    },
  },
  anthropic: {
    model: () => ({ provider: 'anthropic', name: 'fake-model', base_url: llm.origin, api_key: 'x', max_retries: 1 }),
    echoed(body: ChatRequestBody): Echo {
      const m = body.messages!.find((m) => m.role === 'assistant') as unknown as {
        content: Array<{ type: string; text?: string; name?: string; input?: unknown }>;
      };
      const call = m.content.find((b) => b.type === 'tool_use')!;
      const text = m.content.filter((b) => b.type === 'text').map((b) => b.text);
      return { text: text.join(''), name: call.name!, args: call.input };
    },
  },
};

describe.each(['openai', 'anthropic'] as const)('%s', (provider) => {
  it('an answer and a tool call streamed one byte per write arrive whole', async () => {
    const p = PROVIDERS[provider];
    h = await startHarness({
      modelBaseUrl: llm.baseURL,
      config: { model: p.model(), streaming: { start_after: '0ms' } },
    });
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
    expect(p.echoed(llm.requests.at(-1)!)).toEqual({ text: `${SAMPLE} (checking)`, name: 'no_such_tool', args });
    // The answers, each its own message, every character intact (the code span rendered as code).
    const plain = SAMPLE.replaceAll('`', '');
    const texts = h.fake.messages(MAYA.id).map((m) => m.text);
    expect(texts[0]).toBe(`${plain} (checking)`);
    expect(texts).toContain(plain);
  });
});

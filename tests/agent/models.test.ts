// The model chain inside a turn, end to end through the real OpenAI client: retries, fail-fast,
// the honest ⚠️ reply, fallbacks, and running with no model at all.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NO_MODEL_TEXT } from '../../src/core/agent/runner/replies.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { startTestCore, type TestCore } from './helpers/core.ts';

let llm: FakeLlm;
let t: TestCore | undefined;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});
afterEach(async () => {
  await t?.close();
  t = undefined;
  llm.requests.length = 0;
  llm.attempts.length = 0;
});

const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

describe('a turn when the model fails', () => {
  it('retries transient errors and then answers normally', async () => {
    t = await startTestCore({ model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 2 } });
    llm.failNext(2, { status: 503 });
    await t.say('hi');
    expect(llm.attempts.map((a) => a.outcome)).toEqual(['failed', 'failed', 'ok']);
    expect(t.surface.texts()).toEqual(['echo: hi']);
  });

  it('honours Retry-After between attempts', async () => {
    t = await startTestCore({ model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 1 } });
    llm.failNext(1, { status: 429, headers: { 'retry-after-ms': '700' } });
    await t.say('hi');
    expect(llm.attempts).toHaveLength(2);
    expect(llm.attempts[1]!.at - llm.attempts[0]!.at).toBeGreaterThanOrEqual(690);
    expect(t.surface.texts()).toEqual(['echo: hi']);
  });

  it('fails fast on a 400: one attempt, a ⚠️ reply with a hint, no further request', async () => {
    t = await startTestCore({ model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 3 } });
    llm.failNext(1, { status: 400 });
    await t.say('hi');
    await settle();
    expect(llm.attempts).toHaveLength(1);
    expect(t.surface.texts()).toEqual([
      `⚠️ The model openai:fake-model failed (HTTP 400, 1 attempt), so this turn has no answer. Hint: the provider at ${llm.baseURL} rejected the request: check model.name and model.base_url, or shorten the conversation (/new).`,
    ]);
  });

  it('ends the turn with the ⚠️ warning once retries run out, and asks the model nothing more', async () => {
    t = await startTestCore({ model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 1 } });
    llm.failNext(2, { status: 503 });
    await t.say('hi');
    await settle();
    expect(llm.attempts.map((a) => a.outcome)).toEqual(['failed', 'failed']);
    expect(t.surface.texts()).toHaveLength(1);
    expect(t.surface.texts()[0]).toMatch(
      /^⚠️ The model openai:fake-model failed \(HTTP 503, 2 attempts\).*Hint: the model provider at http:\/\/127\.0\.0\.1:\d+\/v1 is unreachable or overloaded/,
    );
    // The next message is a new turn that works. The warning was Kazma's, not the model's: it is not in
    // the history the model is sent (the person's message is).
    await t.say('again');
    expect(t.surface.texts().at(-1)).toBe('echo: again');
    const sent = (llm.requests.at(-1)!.messages ?? []).map((m) => `${m.role}:${String(m.content)}`);
    expect(sent.filter((m) => !m.startsWith('system:'))).toEqual(['user:hi', 'user:again']);
  });
});

describe('fallback models', () => {
  it('says so when a fallback answered', async () => {
    t = await startTestCore({
      model: {
        name: 'primary',
        base_url: llm.baseURL,
        max_retries: 0,
        fallbacks: [{ name: 'backup', base_url: llm.baseURL }],
      },
    });
    llm.failNext(1, { status: 500 });
    await t.say('hi');
    expect(llm.attempts.map((a) => `${a.body.model}:${a.outcome}`)).toEqual(['primary:failed', 'backup:ok']);
    expect(t.surface.texts()).toEqual(['echo: hi\n\n(answered by fallback openai:backup)']);
    await t.say('and now?');
    expect(t.surface.texts().at(-1)).toBe('echo: and now?');
  });
});

describe('no model configured', () => {
  it('answers every turn with one ⚠️ line saying how to configure one', async () => {
    t = await startTestCore({ model: {} });
    await t.say('hi');
    await t.say('hello?');
    expect(t.surface.texts()).toEqual([NO_MODEL_TEXT, NO_MODEL_TEXT]);
    for (const key of ['model.name', 'model.api_key', 'model.base_url', 'kazma.yaml'])
      expect(NO_MODEL_TEXT).toContain(key);
    expect(NO_MODEL_TEXT.split('\n')).toHaveLength(1);
    expect(llm.requests).toHaveLength(0);
    await t.say('/status');
    expect(t.surface.texts().at(-1)).toMatch(/^model: not configured/m);
  });

  it('a named model with no key (and no endpoint of its own) is said to lack its key, not to be missing', async () => {
    t = await startTestCore({ model: { name: 'gpt-4o-mini', api_key: '', base_url: '' } });
    await t.say('hi');
    expect(t.surface.texts()).toEqual([
      '⚠️ The model openai:gpt-4o-mini has no API key, so I cannot answer. Set model.api_key in kazma.yaml (or ' +
        'OPENAI_API_KEY), or model.base_url for a local OpenAI-compatible server, and restart Kazma.',
    ]);
    expect(llm.requests).toHaveLength(0);
  });
});

// The model chain against the fake server through the real ChatOpenAI client: replies, tool calls,
// retries by error class, timeouts and fallbacks, all observed from the server's side.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HumanMessage } from '@langchain/core/messages';
import { withAnswerWords } from '../../../src/core/agent/model/answer-words.ts';
import { createModelChain } from '../../../src/core/agent/model/model-chain.ts';
import { ModelUnavailableError } from '../../../src/core/agent/model/model-errors.ts';
import { startFakeLlm, type FakeLlm } from '../../fakes/llm-server.ts';
import { fakeSettings, readFileTool } from './settings.ts';

let llm: FakeLlm;
beforeEach(async () => {
  llm = await startFakeLlm();
});
afterEach(async () => {
  await llm.close();
});

// Short backoff so retry tests stay quick; Retry-After still wins where the server sends it.
const quick = { retry: { baseDelayMs: 5 } };
const ask = [new HumanMessage('hello there')];

async function failure(p: Promise<unknown>): Promise<ModelUnavailableError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ModelUnavailableError);
  return err as ModelUnavailableError;
}

describe('model chain: replies', () => {
  it('returns a plain text reply from the primary', async () => {
    const reply = await createModelChain(fakeSettings(llm.baseURL)).invoke(ask);
    expect(reply).toMatchObject({ model: 'openai:fake-model', usedFallback: false });
    expect(reply.message.content).toBe('echo: hello there');
    // No key configured for a local server: a placeholder is sent, the SDK would refuse an empty one.
    expect(llm.attempts[0]!.headers.authorization).toBe('Bearer not-needed');
  });

  it('binds tools as JSON Schema and parses a tool call', async () => {
    llm.script({ toolCalls: [{ name: 'read_file', args: { path: 'a.txt' }, id: 'call_1' }] });
    const reply = await createModelChain(fakeSettings(llm.baseURL), { tools: [readFileTool] }).invoke(ask);
    expect(reply.message.tool_calls).toEqual([
      { name: 'read_file', args: { path: 'a.txt' }, id: 'call_1', type: 'tool_call' },
    ]);
    expect(llm.requests[0]!.tools).toEqual([
      {
        type: 'function',
        function: { name: 'read_file', description: readFileTool.description, parameters: readFileTool.schema },
      },
    ]);
    expect(llm.requests[0]!.stream).toBeFalsy();
  });

  it('streams at the fetch only when the words are wanted: each told in order, the whole reply the same', async () => {
    llm.script({ text: 'one two three', pacing: { words: true, delayMs: 5 } });
    const told: string[] = [];
    const words = {
      begin: () => {},
      write: (_call: string, text: string) => told.push(text),
      failed: () => told.push('failed'),
      ended: () => {},
    };
    const chain = createModelChain(fakeSettings(llm.baseURL), { tools: [readFileTool] });
    const reply = await withAnswerWords(words, () => chain.invoke(ask));
    expect(llm.requests[0]!.stream).toBe(true);
    expect(told.length).toBeGreaterThan(1);
    expect(told.join('')).toBe('one two three');
    expect(reply.message.content).toBe('one two three');
    // Not wanted: asked whole, as before.
    await chain.invoke(ask);
    expect(llm.requests[1]!.stream).toBeFalsy();
  });
});

describe('model chain: retries', () => {
  it('retries 500 twice and succeeds on the third attempt', async () => {
    llm.failNext(2, { status: 500 });
    const reply = await createModelChain(fakeSettings(llm.baseURL), quick).invoke(ask);
    expect(reply.message.content).toBe('echo: hello there');
    expect(llm.attempts.map((a) => a.outcome)).toEqual(['failed', 'failed', 'ok']);
  });

  it('honours retry-after on 429', async () => {
    llm.failNext(1, { status: 429, headers: { 'retry-after': '1' } });
    await createModelChain(fakeSettings(llm.baseURL), quick).invoke(ask);
    expect(llm.attempts).toHaveLength(2);
    expect(llm.attempts[1]!.at - llm.attempts[0]!.at).toBeGreaterThanOrEqual(900);
  });

  it('fails fast on 400: one attempt, permanent', async () => {
    llm.failNext(1, { status: 400 });
    const err = await failure(createModelChain(fakeSettings(llm.baseURL), quick).invoke(ask));
    expect(err).toMatchObject({ code: 'model_unavailable', kind: 'permanent', status: 400, attempts: 1 });
    expect(err.message).toContain('fake failure 400');
    // An erroneous retry would arrive within a few ms with this backoff; give it ample time to show up.
    await new Promise((r) => setTimeout(r, 300));
    expect(llm.requests).toHaveLength(1);
  });

  it('on 401 names the endpoint and where the key came from (the variable, or the file)', async () => {
    llm.failNext(1, { status: 401 });
    const fromEnv = await failure(
      createModelChain(fakeSettings(llm.baseURL, { api_key: 'sk-wrong' }), {
        ...quick,
        sources: { 'model.api_key': 'OPENAI_API_KEY' },
      }).invoke(ask),
    );
    expect(fromEnv).toMatchObject({ kind: 'permanent', status: 401, attempts: 1 });
    expect(fromEnv.hint).toBe(
      `the provider at ${llm.baseURL} refused the key from OPENAI_API_KEY (model.api_key): check that key`,
    );
    expect(fromEnv.message).not.toContain('Troubleshooting URL');
    expect(fromEnv.message).not.toContain('sk-wrong');

    llm.failNext(1, { status: 401 });
    const fromFile = await failure(
      createModelChain(fakeSettings(llm.baseURL, { api_key: 'sk-wrong' }), quick).invoke(ask),
    );
    expect(fromFile.hint).toContain('refused the key from model.api_key in kazma.yaml');
  });

  it('an endpoint that refuses the connection is named, and not called "try again later"', async () => {
    const closed = await startFakeLlm();
    await closed.close();
    const err = await failure(createModelChain(fakeSettings(closed.baseURL, { max_retries: 0 }), quick).invoke(ask));
    expect(err.hint).toBe(
      `nothing answers at ${closed.baseURL} (connection refused): is the model server running, and is model.base_url right?`,
    );
    expect(err.hint).not.toContain('try again later');
  });

  it('a password in the endpoint is masked where the endpoint is named', async () => {
    const err = await failure(
      createModelChain(fakeSettings(llm.baseURL.replace('://', '://user:hunter22@'), { max_retries: 0 }), quick).invoke(
        ask,
      ),
    );
    expect(err.hint).toMatch(/ at http:\/\/user:•••@127\.0\.0\.1:\d+\/v1/);
    expect(err.hint).not.toContain('hunter22');
  });

  it('gives up after max_retries + 1 attempts on a transient failure', async () => {
    llm.failNext(10, { status: 503 });
    const err = await failure(createModelChain(fakeSettings(llm.baseURL, { max_retries: 2 }), quick).invoke(ask));
    expect(err).toMatchObject({ kind: 'transient', status: 503, attempts: 3 });
    expect(err.hint).toContain('try again later');
    expect(llm.requests).toHaveLength(3);
  });

  it('treats a response slower than model.timeout as transient and retries it', async () => {
    // Generous timeout: the retried, unhung call must finish inside it even on a loaded machine.
    llm.hangNext(1, 8_000);
    const reply = await createModelChain(fakeSettings(llm.baseURL, { timeout: 1_500 }), quick).invoke(ask);
    expect(reply.message.content).toBe('echo: hello there');
    expect(llm.attempts.map((a) => a.outcome)).toEqual(['hung', 'ok']);
  });

  it('reports a timeout that never clears as transient', async () => {
    llm.hangNext(2, 8_000);
    const err = await failure(
      createModelChain(fakeSettings(llm.baseURL, { timeout: 1_500, max_retries: 1 }), quick).invoke(ask),
    );
    expect(err).toMatchObject({ kind: 'transient', attempts: 2 });
    expect(err.status).toBeUndefined();
  });
});

describe('model chain: fallbacks', () => {
  let backup: FakeLlm;
  beforeEach(async () => {
    backup = await startFakeLlm();
  });
  afterEach(async () => {
    await backup.close();
  });

  const withBackup = (over = {}) =>
    fakeSettings(llm.baseURL, {
      fallbacks: [{ provider: 'openai', name: 'backup-model', base_url: backup.baseURL, api_key: 'sk-backup' }],
      ...over,
    });

  it('answers from the fallback when the primary fails permanently', async () => {
    llm.failNext(1, { status: 404 });
    backup.script({ text: 'from the backup' });
    const reply = await createModelChain(withBackup(), quick).invoke(ask);
    expect(reply).toMatchObject({ model: 'openai:backup-model', usedFallback: true });
    expect(reply.message.content).toBe('from the backup');
    expect(llm.requests).toHaveLength(1);
    expect(backup.requests[0]!.model).toBe('backup-model');
    expect(backup.attempts[0]!.headers.authorization).toBe('Bearer sk-backup');
  });

  it('tries the fallback only after the primary used its retries', async () => {
    llm.failNext(10, { status: 500 });
    const reply = await createModelChain(withBackup({ max_retries: 1 }), quick).invoke(ask);
    expect(reply.usedFallback).toBe(true);
    expect(llm.requests).toHaveLength(2);
    expect(backup.requests).toHaveLength(1);
  });

  it("throws the primary's failure, naming the fallbacks' failures too, when all fail", async () => {
    llm.failNext(1, { status: 401 });
    backup.failNext(10, { status: 503 });
    const err = await failure(createModelChain(withBackup({ max_retries: 1 }), quick).invoke(ask));
    expect(err).toMatchObject({ status: 401, kind: 'permanent', model: 'openai:fake-model', attempts: 1 });
    expect(err.fallbacks).toEqual([expect.objectContaining({ model: 'openai:backup-model', attempts: 2 })]);
    expect(err.message).toContain('openai:backup-model failed after 2 attempts (HTTP 503)');
    expect(backup.requests).toHaveLength(2);
  });
});

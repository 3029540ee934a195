// classifyModelError on the objects the real clients throw (captured from the fake server), plus the
// header formats and wrappings a provider or proxy may produce.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { classifyModelError, retryAfterMs } from '../../../src/core/agent/model/model-errors.ts';
import { createChatModel } from '../../../src/core/agent/model/model-factory.ts';
import type { ModelEntry } from '../../../src/core/agent/model/model-settings.ts';
import { startFakeLlm, type FakeLlm, type FakeFailure } from '../../fakes/llm-server.ts';

let llm: FakeLlm;
beforeEach(async () => {
  llm = await startFakeLlm();
});
afterEach(async () => {
  await llm.close();
});

const openai = (base_url: string): ModelEntry => ({
  provider: 'openai',
  name: 'fake-model',
  base_url,
  api_key: 'sk-test',
});

/** The error ChatOpenAI really throws for one injected failure. */
async function thrown(failure: FakeFailure): Promise<unknown> {
  llm.failNext(1, failure);
  return createChatModel(openai(llm.baseURL), { timeoutMs: 5_000 })
    .invoke('hi')
    .then(
      () => undefined,
      (e: unknown) => e,
    );
}

/** A base URL nothing listens on: a fake that was started and closed again. */
async function deadBaseUrl(): Promise<string> {
  const gone = await startFakeLlm();
  await gone.close();
  return `http://127.0.0.1:${gone.port}`;
}

describe('classifyModelError on real client errors', () => {
  it.each([
    [500, 'transient'],
    [503, 'transient'],
    [408, 'transient'],
    [409, 'transient'],
    [429, 'transient'],
    [400, 'permanent'],
    [401, 'permanent'],
    [403, 'permanent'],
    [404, 'permanent'],
    [422, 'permanent'],
  ] as const)('HTTP %i is %s', async (status, kind) => {
    const info = classifyModelError(await thrown({ status }));
    expect(info).toMatchObject({ kind, status, message: `fake failure ${status}` });
  });

  it('reads retry-after seconds and retry-after-ms from the response', async () => {
    expect(classifyModelError(await thrown({ status: 429, headers: { 'retry-after': '2' } })).retryAfterMs).toBe(2_000);
    expect(classifyModelError(await thrown({ status: 503, headers: { 'retry-after-ms': '250' } })).retryAfterMs).toBe(
      250,
    );
    expect(classifyModelError(await thrown({ status: 500 })).retryAfterMs).toBeUndefined();
  });

  it('uses the provider message from a custom error body', async () => {
    const info = classifyModelError(
      await thrown({
        status: 400,
        body: { error: { message: 'context too long', type: 'invalid_request_error', code: null } },
      }),
    );
    expect(info).toEqual({ kind: 'permanent', status: 400, message: 'context too long' });
  });

  it('calls a refused connection transient (openai and anthropic clients)', async () => {
    const base = await deadBaseUrl();
    const viaOpenai = await createChatModel(openai(`${base}/v1`), { timeoutMs: 5_000 })
      .invoke('hi')
      .catch((e: unknown) => e);
    const viaAnthropic = await createChatModel(
      { provider: 'anthropic', name: 'claude-x', base_url: base, api_key: 'k' },
      { timeoutMs: 5_000 },
    )
      .invoke('hi')
      .catch((e: unknown) => e);
    expect(classifyModelError(viaOpenai)).toMatchObject({ kind: 'transient' });
    expect(classifyModelError(viaAnthropic)).toMatchObject({ kind: 'transient' });
  });

  it("calls the caller's own abort permanent", async () => {
    llm.hangNext(1, 5_000);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const err = await createChatModel(openai(llm.baseURL), { timeoutMs: 5_000 })
      .invoke('hi', { signal: ac.signal })
      .catch((e: unknown) => e);
    expect(classifyModelError(err).kind).toBe('permanent');
  });
});

describe('classifyModelError on wrapped and unknown errors', () => {
  it('finds a network code or status deep in the cause chain', () => {
    const reset = new Error('request failed', {
      cause: new TypeError('fetch failed', { cause: Object.assign(new Error('read'), { code: 'ECONNRESET' }) }),
    });
    expect(classifyModelError(reset).kind).toBe('transient');
    const proxied = Object.assign(new Error('upstream'), {
      response: { status: 502, headers: { 'retry-after': '3' } },
    });
    expect(classifyModelError(proxied)).toMatchObject({ kind: 'transient', status: 502, retryAfterMs: 3_000 });
  });

  it("trusts LangChain's rate-limit code when no status survives", () => {
    expect(classifyModelError(Object.assign(new Error('slow down'), { lc_error_code: 'MODEL_RATE_LIMIT' })).kind).toBe(
      'transient',
    );
  });

  it('calls anything unrecognised permanent', () => {
    expect(classifyModelError(new Error('Unexpected token < in JSON'))).toEqual({
      kind: 'permanent',
      message: 'Unexpected token < in JSON',
    });
    expect(classifyModelError('weird').kind).toBe('permanent');
  });
});

describe('retryAfterMs', () => {
  it('parses an HTTP date relative to now, never negative', () => {
    const clock = { now: () => new Date('2026-01-01T00:00:00Z') };
    expect(retryAfterMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' }), clock)).toBe(5_000);
    expect(retryAfterMs({ 'retry-after': 'Wed, 31 Dec 2025 23:59:00 GMT' }, clock)).toBe(0);
    expect(retryAfterMs({ 'retry-after': 'soon' }, clock)).toBeUndefined();
  });
});

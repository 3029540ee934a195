// withRetry's decisions with time and chance injected: which errors are retried, how long it waits.
import { describe, expect, it } from 'vitest';
import { backoffDelay, retryOutcome, withRetry } from '../../../src/core/agent/model/retry.ts';
import type { ModelErrorInfo } from '../../../src/core/agent/model/model-errors.ts';

const transient = (retryAfterMs?: number): ModelErrorInfo => ({
  kind: 'transient',
  message: 'x',
  ...(retryAfterMs !== undefined && { retryAfterMs }),
});
class Boom extends Error {
  constructor(readonly info: ModelErrorInfo) {
    super(info.message);
  }
}
const classify = (e: unknown): ModelErrorInfo => (e as Boom).info;

/** A function that throws the given infos in turn, then returns 'ok'. */
function flaky(...infos: ModelErrorInfo[]): { fn: () => Promise<string>; calls: () => number } {
  let n = 0;
  return {
    fn: async () => {
      const info = infos[n++];
      if (info) throw new Boom(info);
      return 'ok';
    },
    calls: () => n,
  };
}

function recorder(): { sleep: (ms: number) => Promise<void>; waits: number[] } {
  const waits: number[] = [];
  return {
    waits,
    sleep: async (ms) => {
      waits.push(ms);
    },
  };
}

describe('withRetry', () => {
  it('backs off exponentially with full jitter, capped', async () => {
    const { sleep, waits } = recorder();
    const f = flaky(transient(), transient(), transient(), transient());
    const out = await withRetry(f.fn, {
      maxRetries: 4,
      baseDelayMs: 500,
      capDelayMs: 1_500,
      sleep,
      random: () => 0.5,
      classify,
    });
    expect(out).toBe('ok');
    expect(waits).toEqual([250, 500, 750, 750]);
    expect(f.calls()).toBe(5);
  });

  it('uses the whole range [0, ceiling) of the jitter', () => {
    const o = { baseDelayMs: 500, capDelayMs: 30_000 };
    expect(backoffDelay(3, transient(), { ...o, random: () => 0 })).toBe(0);
    expect(backoffDelay(3, transient(), { ...o, random: () => 0.999 })).toBe(1_998);
  });

  it('waits what Retry-After asks, capped at capDelayMs', async () => {
    const { sleep, waits } = recorder();
    await withRetry(flaky(transient(2_000), transient(90_000)).fn, {
      maxRetries: 3,
      capDelayMs: 30_000,
      sleep,
      random: () => 0,
      classify,
    });
    expect(waits).toEqual([2_000, 30_000]);
  });

  it('fails fast on a permanent error and throws it as is', async () => {
    const { sleep, waits } = recorder();
    const f = flaky({ kind: 'permanent', status: 400, message: 'bad' });
    await expect(withRetry(f.fn, { maxRetries: 5, sleep, classify })).rejects.toBeInstanceOf(Boom);
    expect(f.calls()).toBe(1);
    expect(waits).toEqual([]);
  });

  it('stops after maxRetries retries and reports the attempt count', async () => {
    const { sleep } = recorder();
    const f = flaky(transient(), transient(), transient(), transient());
    const out = await retryOutcome(f.fn, { maxRetries: 2, sleep, classify });
    expect(out).toMatchObject({ ok: false, attempts: 3, info: { kind: 'transient' } });
    expect(f.calls()).toBe(3);
  });

  it('makes no further attempt once the signal is aborted', async () => {
    const ac = new AbortController();
    const f = flaky(transient(), transient());
    const sleep = async (): Promise<void> => {
      ac.abort();
    };
    const out = await retryOutcome(f.fn, { maxRetries: 5, sleep, classify, signal: ac.signal });
    expect(out).toMatchObject({ ok: false, attempts: 1 });
    expect(f.calls()).toBe(1);
  });

  it('sleeps for real by default', async () => {
    const started = Date.now();
    await withRetry(flaky(transient(120)).fn, { maxRetries: 1, classify });
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  });
});

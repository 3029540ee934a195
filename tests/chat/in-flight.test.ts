// InFlight: the work an adapter started and did not wait for, so `idle()` can wait for all of it.
import { describe, expect, it } from 'vitest';
import { InFlight } from '../../src/core/chat/index.ts';

/** A promise with its settle functions outside, so a test decides when work ends. */
function deferred(): { promise: Promise<void>; resolve: () => void; reject: (error: unknown) => void } {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('InFlight', () => {
  it('is idle at once when nothing was tracked', async () => {
    const inflight = new InFlight();
    expect(inflight.size).toBe(0);
    await inflight.idle();
  });

  it('tracks work until it settles, and idle() waits for it', async () => {
    const inflight = new InFlight();
    const work = deferred();
    inflight.track(work.promise);
    expect(inflight.size).toBe(1);
    let idle = false;
    const waiting = inflight.idle().then(() => (idle = true));
    await turn();
    expect(idle).toBe(false);
    work.resolve();
    await waiting;
    expect(inflight.size).toBe(0);
  });

  it('a rejected promise leaves no entry behind, and neither idle() nor the process sees the rejection', async () => {
    const inflight = new InFlight();
    const work = deferred();
    inflight.track(work.promise);
    work.reject(new Error('the handler failed'));
    await expect(inflight.idle()).resolves.toBeUndefined();
    await turn();
    expect(inflight.size).toBe(0);
  });

  it('idle() also waits for work tracked while it waits', async () => {
    const inflight = new InFlight();
    const first = deferred();
    const second = deferred();
    inflight.track(first.promise);
    let idle = false;
    const waiting = inflight.idle().then(() => (idle = true));
    // The first piece of work starts the second before it ends, as a turn may queue a follow-up.
    inflight.track(second.promise);
    first.resolve();
    await turn();
    expect(idle).toBe(false);
    second.reject(new Error('late failure'));
    await waiting;
    expect(inflight.size).toBe(0);
  });
});

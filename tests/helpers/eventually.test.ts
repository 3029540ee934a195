// The test helper every background wait goes through: it must return what it found, and when it gives
// up, say what it waited for and what it last saw.
import { describe, expect, it } from 'vitest';
import { eventually } from './eventually.ts';

describe('eventually', () => {
  it('returns what pick found, once it finds it', async () => {
    let reads = 0;
    const found = await eventually(
      () => ++reads,
      (n) => (n >= 3 ? `read ${n}` : undefined),
      'the third read',
      { intervalMs: 1 },
    );
    expect(found).toBe('read 3');
  });

  it('treats false as "not yet" and true as found (a plain condition)', async () => {
    let ready = false;
    setTimeout(() => (ready = true), 20);
    await expect(
      eventually(
        () => ready,
        (r) => r,
        'ready',
        { intervalMs: 1 },
      ),
    ).resolves.toBe(true);
  });

  it('on timeout names what it waited for and the last value read', async () => {
    const rows = [{ id: 'o1', state: 'pending' }];
    await expect(
      eventually(
        async () => rows,
        (r) => r.length === 0,
        'the outbox drained',
        50,
      ),
    ).rejects.toThrow(
      /^timed out after 50 ms waiting for the outbox drained; last read: \[\s*\{\s*"id": "o1",\s*"state": "pending"\s*\}\s*\]$/,
    );
  });

  it('evaluates a function `what` only when it gives up, so it shows the state of that moment', async () => {
    let log = 'starting';
    setTimeout(() => (log = 'crashed: no database'), 10);
    await expect(
      eventually(
        () => 0,
        () => undefined,
        () => `the ready line; log: ${log}`,
        { timeoutMs: 40, intervalMs: 5 },
      ),
    ).rejects.toThrow('waiting for the ready line; log: crashed: no database');
  });

  it('ends at once with the error a read throws (waiting longer cannot help)', async () => {
    const started = Date.now();
    await expect(
      eventually(
        () => {
          throw new Error('the child exited (1)');
        },
        () => true,
        'anything',
        10_000,
      ),
    ).rejects.toThrow('the child exited (1)');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('cuts a huge last value short', async () => {
    const big = 'x'.repeat(10_000);
    const error = await eventually(
      () => big,
      () => undefined,
      'nothing',
      10,
    ).catch((e: Error) => e);
    expect((error as Error).message.length).toBeLessThan(3200);
    expect((error as Error).message).toMatch(/more characters\)$/);
  });
});

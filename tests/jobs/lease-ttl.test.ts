// `jobs.lease_ttl` decides how soon a job whose worker died goes to another worker: it is the life
// of the lock a running job holds in Redis (BullMQ renews it at half that while the worker lives). The
// lock's remaining time is read from Redis itself, so the check does not depend on the machine's speed.
import { Redis } from 'ioredis';
import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import { JobKinds, type JobKind } from '../../src/core/jobs/port.ts';
import { createLogger } from '../../src/core/log/index.ts';
import { parseConfig } from '../../src/core/config/index.ts';
import { BullJobDriver } from '../../src/jobs/driver.ts';
import { eventually } from '../helpers/eventually.ts';
import { TEST_REDIS, testQueuePrefix } from '../helpers/outbox.ts';

const logger = createLogger({ level: 'silent', pretty: false });
const opened: Array<{ close(): Promise<unknown> }> = [];
afterEach(async () => {
  for (const c of opened.splice(0).reverse()) await c.close();
});

/** Starts a job that holds until released, and reads how long its lock has left. */
async function lockLifeOfARunningJob(stalledAfterMs: number | undefined): Promise<number> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const kind: JobKind<{ n: number }> = {
    name: 'hold',
    lane: 'sweeps',
    payload: z.object({ n: z.number() }),
    handle: () => held,
  };
  const prefix = testQueuePrefix('stalled');
  const driver = new BullJobDriver({
    connection: TEST_REDIS,
    prefix,
    kinds: new JobKinds().register(kind),
    logger,
    ...(stalledAfterMs !== undefined && { stalledAfterMs }),
  });
  const redis = new Redis(TEST_REDIS);
  opened.push(
    driver,
    {
      close: async () => {
        release();
      },
    },
    { close: () => redis.quit() },
  );
  driver.startWorkers(['sweeps']);
  await driver.enqueue(kind, { n: 1 }, { jobId: 'held' });
  return eventually(
    () => redis.pttl(`${prefix}:sweeps:held:lock`),
    (ms) => ms > 0 && ms,
    "the running job's lock",
    30_000,
  );
}

describe('jobs.lease_ttl', () => {
  it("a running job's lock lapses within jobs.lease_ttl, so a dead worker's job is handed over that soon", async () => {
    const { jobs } = parseConfig('jobs: { lease_ttl: 3s }', { env: {}, baseDir: '/tmp' }).config;
    expect(jobs.lease_ttl).toBe(3_000);
    const left = await lockLifeOfARunningJob(jobs.lease_ttl);
    expect(left).toBeLessThanOrEqual(3_000);
  });

  it('by default the lock lives 15 s', async () => {
    const { jobs } = parseConfig('{}', { env: {}, baseDir: '/tmp' }).config;
    expect(jobs.lease_ttl).toBe(15_000);
    const left = await lockLifeOfARunningJob(undefined);
    // Read at most a few seconds after it was taken: far above the 3 s case, at most its full life.
    expect(left).toBeGreaterThan(3_000);
    expect(left).toBeLessThanOrEqual(15_000);
  });
});

// Redis may forget; PostgreSQL is the truth. When this install's keys vanish from Redis (a restart without
// persistence, a failover to an empty replica, a FLUSHALL — here: every key under the install's prefix
// deleted), the sweep's schedule, reminders, cron schedules and the jobs of queued tasks come back from
// the database at once, without a restart; and a start after Redis forgot finds queued tasks again.
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SWEEP_SCHEDULE } from '../../src/core/jobs/index.ts';
import type { ChatRef } from '../../src/core/surface/index.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { kazmasOnOneDatabase } from '../helpers/assembled.ts';
import { eventually } from '../helpers/eventually.ts';
import { TEST_REDIS, testQueuePrefix } from '../helpers/outbox.ts';

const CHAT: ChatRef = 'telegram:1';
const MAYA = { platform: 'telegram', id: '42' };

let llm: FakeLlm;
let redis: Redis;
beforeAll(async () => {
  llm = await startFakeLlm();
  redis = new Redis(TEST_REDIS);
});
afterAll(async () => {
  await llm.close();
  redis.disconnect();
});
const kazmas = kazmasOnOneDatabase();

/** Deletes every key under `prefix`: what this install finds after Redis restarted empty. */
async function forget(prefix: string): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) deleted += await redis.del(...keys);
  } while (cursor !== '0');
  return deleted;
}

/** What BullMQ holds of this install's work: the schedulers by id, and single jobs by id. */
async function held(prefix: string, ids: { reminder: string; cron: string; task: string }) {
  const queue = (lane: string) => new Queue(lane, { connection: TEST_REDIS, prefix });
  const [schedules, sweeps, swarm] = [queue('schedules'), queue('sweeps'), queue('swarm')];
  try {
    const schedulers = [...(await schedules.getJobSchedulers()), ...(await sweeps.getJobSchedulers())];
    return {
      sweep: schedulers.some((s) => s.key === SWEEP_SCHEDULE || s.id === SWEEP_SCHEDULE),
      cron: schedulers.some((s) => s.key === ids.cron || s.id === ids.cron),
      reminder: (await schedules.getJob(ids.reminder)) !== undefined,
      task: (await swarm.getJob(ids.task)) !== undefined,
    };
  } finally {
    await Promise.all([schedules.close(), sweeps.close(), swarm.close()]);
  }
}

async function start(prefix: string) {
  return kazmas.start(
    {
      model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 0 },
      access: { operators: [{ name: 'maya', telegram: '42' }] },
      // No worker takes background tasks here, so a queued task's job stays in Redis to be looked at.
      jobs: { concurrency: { swarm: 0 } },
    },
    { queuePrefix: prefix },
  );
}

async function work(k: Awaited<ReturnType<typeof start>>) {
  const { schedules, tasks } = k.kazma.core;
  const reminder = await schedules.remind({ words: 'in 2 hours stretch', chat: CHAT, requester: MAYA });
  const cron = await schedules.addCron({ pattern: '0 9 * * *', prompt: 'summarise', chat: CHAT, requester: MAYA });
  const task = await tasks.start({ goal: 'count the stars', origin: CHAT, requester: MAYA });
  return { reminder: reminder.id, cron: cron.id, task: task.id };
}

const ALL = { sweep: true, cron: true, reminder: true, task: true };
const NONE = { sweep: false, cron: false, reminder: false, task: false };

describe('redis forgets its jobs', () => {
  it('while Kazma runs: the sweep, a reminder, a cron schedule and a queued task come back without a restart', async () => {
    const prefix = testQueuePrefix('forget');
    const k = await start(prefix);
    const ids = await work(k);
    await eventually(
      () => held(prefix, ids),
      (h) => JSON.stringify(h) === JSON.stringify(ALL),
      'every job in redis',
    );

    expect(await forget(prefix)).toBeGreaterThan(0);
    expect(await held(prefix, ids)).toEqual(NONE);
    await eventually(
      () => held(prefix, ids),
      (h) => JSON.stringify(h) === JSON.stringify(ALL),
      'every job derived again from the database',
      { timeoutMs: 20_000 },
    );
    const ready = await fetch(`http://127.0.0.1:${k.kazma.http.port}/readyz`);
    expect(ready.status).toBe(200);
  });

  it('while Kazma was stopped: the next start finds the queued task and the schedules again', async () => {
    const prefix = testQueuePrefix('forget');
    const first = await start(prefix);
    const ids = await work(first);
    await first.close();
    await forget(prefix);

    await start(prefix);
    await eventually(
      () => held(prefix, ids),
      (h) => JSON.stringify(h) === JSON.stringify(ALL),
      'every job derived again at start',
    );
  });
});

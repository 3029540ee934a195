import { randomUUID } from 'node:crypto';
import { inArray } from 'drizzle-orm';
import type { RedisHandle } from '../../src/jobs/redis.ts';
import type { Database } from '../../src/core/db/index.ts';
import { outbox } from '../../src/core/db/schema/outbox.ts';
import { eventually } from './eventually.ts';

/** The Redis every queue test uses (CI starts it; see .ci/run). */
export const TEST_REDIS = { host: '127.0.0.1', port: 6379, maxRetriesPerRequest: null };

/** The test Redis as assembleKazma takes it: already answering, and not Kazma's to close. */
export function testRedis(): RedisHandle {
  return { options: TEST_REDIS, where: 'redis://127.0.0.1:6379', ping: async () => {}, close: async () => {} };
}

/** A BullMQ prefix of its own, so parallel tests never take each other's jobs. */
export function testQueuePrefix(name = 'test'): string {
  return `kazma-${name}-${randomUUID().slice(0, 8)}`;
}

/** Waits until no outbox row is pending or being sent: every card and edit so far is delivered. */
export async function waitForOutbox(database: Pick<Database, 'db'>, timeoutMs = 20_000): Promise<void> {
  const undelivered = () =>
    database.db
      .select({ id: outbox.id, error: outbox.lastError })
      .from(outbox)
      .where(inArray(outbox.state, ['pending', 'sending']));
  // On timeout the message lists the rows still open, with their last error.
  await eventually(undelivered, (open) => open.length === 0, 'every outbox row delivered (none pending or sending)', {
    timeoutMs,
    intervalMs: 20,
  });
}

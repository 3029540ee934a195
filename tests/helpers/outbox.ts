import { inArray } from 'drizzle-orm';
import type { Database } from '../../src/core/db/index.ts';
import { outbox } from '../../src/core/db/schema/outbox.ts';

/** The Redis every queue test uses (CI starts it; see .ci/run). */
export const TEST_REDIS = { host: '127.0.0.1', port: 6379, maxRetriesPerRequest: null };

/** Waits until no outbox row is pending or being sent: every card and edit so far is delivered. */
export async function waitForOutbox(database: Pick<Database, 'db'>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await database.db.select({ id: outbox.id, error: outbox.lastError }).from(outbox).where(inArray(outbox.state, ['pending', 'sending']));
    if (open.length === 0) return;
    if (Date.now() > deadline) throw new Error(`outbox still has ${open.length} undelivered rows: ${JSON.stringify(open)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

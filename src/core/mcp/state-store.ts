import { and, eq, sql } from 'drizzle-orm';
import { type Db, mcpServers } from '../db/index.ts';

export type McpServerRow = typeof mcpServers.$inferSelect;
export type McpServerState = McpServerRow['state'];

/** The first retry waits this long; each failure doubles it, up to {@link MAX_RETRY_MS}. */
export const FIRST_RETRY_MS = 30_000;
export const MAX_RETRY_MS = 30 * 60_000;

/**
 * How long to wait after the `attempts`-th failure in a row: 30 s, 1 min, 2 min … 30 min. A command
 * that does not exist will not appear by itself soon, so it waits the longest at once.
 */
export function retryDelayMs(attempts: number, notFound: boolean): number {
  if (notFound) return MAX_RETRY_MS;
  return Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1));
}

/** The `mcp_servers` table: one upsert per change of a server's state. */
export class McpStateStore {
  constructor(private readonly db: Db) {}

  async all(): Promise<McpServerRow[]> {
    return this.db.select().from(mcpServers).orderBy(mcpServers.name);
  }

  async get(name: string): Promise<McpServerRow | undefined> {
    const [row] = await this.db.select().from(mcpServers).where(eq(mcpServers.name, name));
    return row;
  }

  async running(name: string, toolCount: number, now: Date): Promise<void> {
    await this.#put(name, {
      state: 'running',
      lastError: null,
      attempts: 0,
      nextRetryAt: null,
      failingSince: null,
      toolCount,
      progressAt: now,
    });
  }

  /** Records a failed start; returns when the next attempt is due. */
  async failed(name: string, error: string, notFound: boolean, now: Date): Promise<Date> {
    const row = await this.get(name);
    const attempts = (row?.attempts ?? 0) + 1;
    const nextRetryAt = new Date(now.getTime() + retryDelayMs(attempts, notFound));
    const failingSince = row?.state === 'failed' && row.failingSince ? row.failingSince : now;
    await this.#put(name, { state: 'failed', lastError: error, attempts, nextRetryAt, failingSince, toolCount: 0 });
    return nextRetryAt;
  }

  /** Makes a failed server's next attempt due now; the failure episode (`failingSince`) goes on. */
  async dueNow(name: string, now: Date): Promise<void> {
    await this.db
      .update(mcpServers)
      .set({ nextRetryAt: now })
      .where(and(eq(mcpServers.name, name), eq(mcpServers.state, 'failed')));
  }

  /** `stopped` (Kazma stopped it, or it exited) or `disabled` (switched off). */
  async stopped(name: string, state: 'stopped' | 'disabled'): Promise<void> {
    await this.#put(name, { state, attempts: 0, nextRetryAt: null, failingSince: null, toolCount: 0 });
  }

  async forget(name: string): Promise<void> {
    await this.db.delete(mcpServers).where(eq(mcpServers.name, name));
  }

  async #put(
    name: string,
    values: Partial<Omit<McpServerRow, 'name' | 'updatedAt'>> & { state: McpServerState },
  ): Promise<void> {
    await this.db
      .insert(mcpServers)
      .values({ name, ...values })
      .onConflictDoUpdate({ target: mcpServers.name, set: { ...values, updatedAt: sql`now()` } });
  }
}

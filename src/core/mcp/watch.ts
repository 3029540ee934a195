import { and, eq, lte } from 'drizzle-orm';
import { type Db, mcpServers } from '../db/index.ts';
import type { WatchedKind } from '../runs/index.ts';

/**
 * MCP servers for the run supervisor: one that has kept failing to start for `runs.stall_after.mcp`
 * opens a `failed` incident (its `since` is when the failures began, so one episode is one incident;
 * it recovers by itself once the server runs). Retry starts it now instead of at its next retry time.
 */
export function watchMcp(db: Db, retryNow: (name: string) => Promise<void>): WatchedKind {
  return {
    kind: 'mcp',
    tables: ['mcp_servers'],
    actions: ['retry'],
    async scan({ now, stallAfterMs }) {
      const rows = await db
        .select()
        .from(mcpServers)
        .where(
          and(eq(mcpServers.state, 'failed'), lte(mcpServers.failingSince, new Date(now.getTime() - stallAfterMs))),
        );
      return rows.map((row) => ({
        workId: row.name,
        problem: 'failed' as const,
        since: row.failingSince!,
        detail:
          `MCP server "${row.name}" has not started after ${row.attempts} attempt(s): ` +
          `${row.lastError ?? 'no reason recorded'}`,
      }));
    },
    async act(_action, name) {
      await retryNow(name);
      const [row] = await db.select().from(mcpServers).where(eq(mcpServers.name, name));
      return (
        `MCP server ${name}: ` +
        (row?.state === 'running'
          ? 'running again'
          : `still ${row?.state ?? 'unknown'}${row?.lastError ? ` (${row.lastError})` : ''}`)
      );
    },
  };
}

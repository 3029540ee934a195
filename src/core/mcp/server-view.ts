// A configured MCP server joined with its state row: what `/config tools list` and `kazma mcp list` show.
import type { McpServerConfig } from '../config/index.ts';
import type { McpServerRow } from './state-store.ts';

/** A server as `/config tools list` and `kazma mcp list` show it. */
export interface McpServerView {
  name: string;
  on: boolean;
  trust: McpServerConfig['trust'];
  transport: McpServerConfig['transport'];
  state: McpServerRow['state'] | 'starting';
  toolCount: number;
  lastError?: string;
  nextRetryAt?: Date;
}

/** Joins the configured servers with their state rows. */
export function listServers(servers: readonly McpServerConfig[], rows: readonly McpServerRow[]): McpServerView[] {
  const byName = new Map(rows.map((r) => [r.name, r]));
  return servers.map((s) => {
    const row = byName.get(s.name);
    return {
      name: s.name,
      on: s.enabled,
      trust: s.trust,
      transport: s.transport,
      state: row?.state ?? (s.enabled ? 'starting' : 'disabled'),
      toolCount: row?.toolCount ?? 0,
      ...(row?.lastError && row.state === 'failed' && { lastError: row.lastError }),
      ...(row?.nextRetryAt && row.state === 'failed' && { nextRetryAt: row.nextRetryAt }),
    };
  });
}

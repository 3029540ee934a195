import type { Clock } from '../clock.ts';
import type { McpServerRequestHandler } from './connection.ts';
import type { LoadedConfig } from '../config/index.ts';
import type { Db } from '../db/index.ts';
import type { SweepStep } from '../jobs/index.ts';
import type { Logger } from '../log/index.ts';
import { RuntimeSettings } from '../settings/index.ts';
import type { ToolRegistry } from '../tools/index.ts';
import type { VaultPort } from '../vault/index.ts';
import { McpManager } from './manager.ts';
import { mcpMetaTools } from './meta-tools.ts';
import { McpServerSettings } from './server-settings.ts';
import { McpStateStore } from './state-store.ts';

/** What {@link createMcp} needs; build it after the tools module, before the settings module. */
export interface McpDeps {
  loaded: LoadedConfig;
  db: Db;
  registry: ToolRegistry;
  clock: Clock;
  logger: Logger;
  /**
   * Resolves `vault://` pointers in server settings; without it such a server fails with a message naming the field.
   */
  vault?: VaultPort;
  /** Told when following the settings fails (the database is down); default a warning each time. */
  onDbError?: (error: unknown) => void;
  /** Decides sampling and elicitation requests of servers that enable them (a card first); default: refused. */
  serverRequests?: McpServerRequestHandler;
}

/** How often a process picks up servers and switches another process saved. */
const FOLLOW_MS = 5_000;

/**
 * The MCP module: starts the configured servers (waiting for each at most its connect timeout; one
 * that fails is retried by the sweep), registers their tools and the resource/prompt tools, and gives
 * `/config` the servers to list and switch.
 */
export async function createMcp({ loaded, db, registry, clock, logger, vault, onDbError, serverRequests }: McpDeps) {
  const settings = new McpServerSettings({ settings: new RuntimeSettings(db), yaml: loaded.config.mcp.servers });
  const store = new McpStateStore(db);
  const manager = new McpManager({
    settings,
    store,
    registry,
    env: loaded.env,
    safeTools: loaded.config.mcp.safe_tools,
    secrets: loaded.secrets,
    clock,
    logger,
    ...(vault && { vault }),
    ...(onDbError && { onError: onDbError }),
    ...(serverRequests && { onServerRequest: serverRequests }),
  });
  // The resource and prompt tools exist once any server is configured (a server added later brings them at the next
  // start).
  if ((await settings.servers()).length > 0) for (const tool of mcpMetaTools(manager)) registry.register(tool);
  await manager.reconcile();
  manager.follow(FOLLOW_MS);
  const sweep: SweepStep = { name: 'mcp', run: () => manager.reconcile() };
  return { manager, settings, store, sweep, stop: () => manager.close() };
}

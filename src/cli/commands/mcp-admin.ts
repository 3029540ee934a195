// What `kazma mcp` and `kazma tools` share: the configured database (migrated), the run-time settings
// over kazma.yaml and the MCP state rows — the same objects a running Kazma reads, so a change here
// reaches it within seconds (it follows the settings).
import type { LoadedConfig } from '../../core/config/index.ts';
import { createLogger } from '../../core/log/index.ts';
import { McpServerEditor, McpStateStore } from '../../core/mcp/index.ts';
import { RuntimeSettings } from '../../core/settings/index.ts';
import { createVault } from '../../core/vault/module.ts';
import { openMigratedDatabase } from '../../storage.ts';

/** Opens the database and the settings; call `close()` when done. */
export async function openAdmin(loaded: LoadedConfig) {
  const database = await openMigratedDatabase(loaded, { besideOwner: true });
  try {
    const logger = createLogger({ level: 'warn', secrets: loaded.secrets });
    const { vault } = await createVault({ loaded, db: database.db, logger });
    const settings = new RuntimeSettings(database.db);
    return {
      database,
      settings,
      vault,
      logger,
      servers: new McpServerEditor({ settings, yaml: loaded.config.mcp.servers }),
      store: new McpStateStore(database.db),
      close: () => database.close(),
    };
  } catch (error) {
    await database.close();
    throw error;
  }
}

export type Admin = Awaited<ReturnType<typeof openAdmin>>;

/** Who changed a setting from the command line, as the settings table records it. */
export const CLI_ACTOR = 'cli';

import type { LoadedConfig } from '../config/index.ts';
import type { Db } from '../db/index.ts';
import type { Logger } from '../log/index.ts';
import { resolveVaultPointers } from './config-pointers.ts';
import { VAULT_KEY_ENV, VaultWrongKeyError } from './errors.ts';
import { VAULT_KEY_FILE, vaultPassphrase } from './key-file.ts';
import { vaultTools } from './tools.ts';
import { Vault } from './vault.ts';

/**
 * What {@link createVault} needs; build it right after the database opens, before any module reads the configuration.
 */
export interface VaultDeps {
  loaded: LoadedConfig;
  db: Db;
  logger: Logger;
  /** PBKDF2 iterations for a vault created now. Default 600,000; lower only in tests. */
  iterations?: number;
}

/**
 * The vault module: the vault (key from `KAZMA_VAULT_KEY`, else `<data_dir>/vault.key`), its four tools,
 * and the configuration with every `vault://` pointer resolved (in `loaded`, see {@link resolveVaultPointers}).
 * Throws a ConfigError naming the key path of a pointer it cannot resolve. A wrong key with no pointer to
 * resolve does not stop Kazma: it is logged, and the vault tools say so when called.
 */
export async function createVault({ loaded, db, logger, iterations }: VaultDeps) {
  const vault = new Vault({
    db,
    passphrase: vaultPassphrase(loaded),
    ...(iterations !== undefined && { iterations }),
  });
  if (!vault.enabled) {
    logger.info(
      `vault disabled: set ${VAULT_KEY_ENV} (or run kazma init, which writes <data_dir>/${VAULT_KEY_FILE}) to store ` +
        'secrets and use vault:// pointers',
    );
  } else {
    try {
      await vault.unlock();
      logger.info('vault unlocked');
    } catch (error) {
      if (!(error instanceof VaultWrongKeyError)) throw error;
      logger.warn({ code: error.code }, error.message);
    }
  }
  const resolved = await resolveVaultPointers(loaded, vault);
  if (resolved > 0) logger.info({ pointers: resolved }, 'vault:// pointers in the configuration resolved');
  return { vault, tools: vaultTools(vault) };
}

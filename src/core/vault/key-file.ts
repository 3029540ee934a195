// The vault passphrase's second home: `<data_dir>/vault.key`, a file only its owner may read, which
// `kazma init` writes so a person need not keep KAZMA_VAULT_KEY in their shell. The variable still wins.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../errors.ts';
import { VAULT_KEY_ENV } from './errors.ts';

/** The key file's name inside data_dir. */
export const VAULT_KEY_FILE = 'vault.key';

/** Where the key file of `dataDir` is. */
export function vaultKeyPath(dataDir: string): string {
  return join(dataDir, VAULT_KEY_FILE);
}

/**
 * The vault passphrase: `KAZMA_VAULT_KEY` when set, else the first line of `<data_dir>/vault.key`, else
 * undefined (the vault is off). A key file others may read is refused: it would hand them every secret.
 */
export function vaultPassphrase(loaded: {
  env: Readonly<Record<string, string | undefined>>;
  config: { data_dir: string };
}): string | undefined {
  const fromEnv = loaded.env[VAULT_KEY_ENV];
  if (fromEnv) return fromEnv;
  const path = vaultKeyPath(loaded.config.data_dir);
  if (!existsSync(path)) return undefined;
  if ((statSync(path).mode & 0o077) !== 0) {
    const headline = `${path} may be read by others; make it private: chmod 600 ${path}`;
    throw new ConfigError([headline], { headline });
  }
  return readFileSync(path, 'utf8').split('\n')[0]!.trim() || undefined;
}

/**
 * Writes a new random passphrase to `<data_dir>/vault.key` (mode 0600), or keeps the one there.
 * Returns the file's path and whether this call made it.
 */
export function ensureVaultKeyFile(dataDir: string): { path: string; created: boolean } {
  const path = vaultKeyPath(dataDir);
  if (existsSync(path)) return { path, created: false };
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // `wx`: two inits at once cannot both write a key (the second would lock the first's secrets away).
  writeFileSync(path, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  return { path, created: true };
}

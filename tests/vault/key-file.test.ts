// The vault's key file: `kazma init` writes `<data_dir>/vault.key` (0600), read when KAZMA_VAULT_KEY is unset.
import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureVaultKeyFile, vaultPassphrase } from '../../src/core/vault/index.ts';

const dataDir = () => join(mkdtempSync(join(tmpdir(), 'kazma-key-')), 'data');

describe('the vault key file', () => {
  it('is made once with mode 0600 and a random key, and kept after', () => {
    const dir = dataDir();
    const made = ensureVaultKeyFile(dir);
    expect(made.created).toBe(true);
    expect(statSync(made.path).mode & 0o777).toBe(0o600);
    const key = readFileSync(made.path, 'utf8').trim();
    expect(Buffer.from(key, 'base64')).toHaveLength(32);
    expect(ensureVaultKeyFile(dir)).toEqual({ path: made.path, created: false });
    expect(readFileSync(made.path, 'utf8').trim()).toBe(key);
  });

  it('gives the passphrase when KAZMA_VAULT_KEY is unset; the variable wins; none: undefined', () => {
    const dir = dataDir();
    expect(vaultPassphrase({ env: {}, config: { data_dir: dir } })).toBeUndefined();
    const { path } = ensureVaultKeyFile(dir);
    const key = readFileSync(path, 'utf8').trim();
    expect(vaultPassphrase({ env: {}, config: { data_dir: dir } })).toBe(key);
    expect(vaultPassphrase({ env: { KAZMA_VAULT_KEY: 'from-env' }, config: { data_dir: dir } })).toBe('from-env');
  });

  it('refuses a key file others may read, naming the chmod', () => {
    const dir = dataDir();
    const { path } = ensureVaultKeyFile(dir);
    writeFileSync(path, 'k\n');
    chmodSync(path, 0o644);
    expect(() => vaultPassphrase({ env: {}, config: { data_dir: dir } })).toThrow(`chmod 600 ${path}`);
  });
});

// The public face of core/vault for the CLI and tests. Modules inside core import the one file they
// need (port.ts for the VaultPort type, pointer.ts for isVaultPointer), as the MCP manager does.
export { Vault } from './vault.ts';
export { findVaultPointers, resolveVaultPointers } from './config-pointers.ts';
export {
  VAULT_KEY_ENV,
  VaultDisabledError,
  VaultNameError,
  VaultTamperedError,
  VaultUnknownNameError,
  VaultWrongKeyError,
} from './errors.ts';
export type { VaultPort } from './port.ts';
export { vaultTools } from './tools.ts';
export { ensureVaultKeyFile, VAULT_KEY_FILE, vaultKeyPath, vaultPassphrase } from './key-file.ts';

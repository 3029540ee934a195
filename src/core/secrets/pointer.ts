/** How a configuration value names a vault secret instead of holding it: `vault://<name>`. */
export const VAULT_SCHEME = 'vault://';

/**
 * What a secret may be called: 1-128 letters, digits, `.`, `_` or `-`, starting with a letter or digit.
 * Dots are the way to group names (`mcp.github.token`); no `/`, so a pointer never looks like a path.
 */
export const VAULT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** The naming rule as a person reads it, for error messages. */
export const VAULT_NAME_RULE = '1-128 letters, digits, ".", "_" or "-", starting with a letter or digit';

/**
 * True when `value` is a whole `vault://…` pointer. Only a whole value counts: `"x vault://y"` is
 * text, so a secret is never spliced into a longer string where masking could miss it.
 *
 * @example
 * isVaultPointer('vault://github-token') // true
 * isVaultPointer('ghp_abc')              // false
 */
export function isVaultPointer(value: unknown): value is `vault://${string}` {
  return typeof value === 'string' && value.startsWith(VAULT_SCHEME);
}

/** The name a pointer points at (not validated; the vault checks it). */
export function pointerName(pointer: string): string {
  return pointer.slice(VAULT_SCHEME.length);
}

/** The pointer for a name: `vaultPointer('github-token')` is `vault://github-token`. */
export function vaultPointer(name: string): string {
  return `${VAULT_SCHEME}${name}`;
}

/**
 * What other modules use of the vault (MCP settings, config resolution), so they depend on this
 * interface and not on the database behind it.
 *
 * @example
 * const token = await vault.resolve(server.auth.token); // 'vault://gh' -> the secret; other text as is
 * server.auth.token = await vault.stash('mcp.github.token', typed); // -> 'vault://mcp.github.token'
 */
export interface VaultPort {
  /** False without `KAZMA_VAULT_KEY`; then `resolve` of a pointer and `stash` throw `VaultDisabledError`. */
  readonly enabled: boolean;
  /**
   * The secret a `vault://name` pointer names; any other value comes back as it is. Throws
   * `VaultUnknownNameError`, `VaultDisabledError`, `VaultWrongKeyError` or `VaultTamperedError`.
   */
  resolve(value: string): Promise<string>;
  /** Stores `value` under `name` (replacing what was there) and returns its pointer, `vault://name`. */
  stash(name: string, value: string): Promise<string>;
}

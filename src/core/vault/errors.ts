import { KazmaError } from '../errors.ts';
import { VAULT_NAME_RULE } from '../secrets/index.ts';

/** The environment variable holding the vault passphrase. */
export const VAULT_KEY_ENV = 'KAZMA_VAULT_KEY';

/** Base of the vault's errors; `code` tells them apart. */
export class VaultError extends KazmaError {}

/** No `KAZMA_VAULT_KEY`: nothing can be stored or read, and the message says how to turn it on. */
export class VaultDisabledError extends VaultError {
  constructor(what?: string) {
    super(
      'vault_disabled',
      `${what ? `${what} needs the secret vault, which` : 'The secret vault'} is disabled: set ${VAULT_KEY_ENV} to ` +
        `a long passphrase (e.g. openssl rand -base64 32) and keep it safe; without it nothing stored can be read.`,
    );
  }
}

/** `KAZMA_VAULT_KEY` is set but is not the passphrase this vault was created with. */
export class VaultWrongKeyError extends VaultError {
  constructor() {
    super(
      'vault_wrong_key',
      `${VAULT_KEY_ENV} does not open this vault: it is not the passphrase the vault was created with. Set the ` +
        `original passphrase; the secrets cannot be recovered without it.`,
    );
  }
}

/**
 * A record does not authenticate under the right key: its bytes were changed, or it was copied from
 * another name (the name is bound to the ciphertext). Nothing of it is returned.
 */
export class VaultTamperedError extends VaultError {
  constructor(readonly secret: string) {
    super(
      'vault_record_tampered',
      `The vault record "${secret}" failed its integrity check (changed or copied from another name), so it was not ` +
        `used. Store it again: kazma vault set ${secret}`,
    );
  }
}

/** No secret of that name. `names` are the ones there are, for the message. */
export class VaultUnknownNameError extends VaultError {
  constructor(
    readonly secret: string,
    names: readonly string[] = [],
  ) {
    const known = names.length > 0 ? ` Stored: ${names.join(', ')}.` : ' The vault is empty.';
    super(
      'vault_unknown_name',
      `There is no secret named "${secret}" in the vault.${known} Store it with: kazma vault set ${secret}`,
    );
  }
}

/** The name breaks {@link VAULT_NAME_RULE}. */
export class VaultNameError extends VaultError {
  constructor(readonly secret: string) {
    super('vault_name_invalid', `"${secret}" is not a valid vault name: use ${VAULT_NAME_RULE}.`);
  }
}

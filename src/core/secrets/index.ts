// The public face of core/secrets.
export { childEnv, isSecretEnv } from './child-env.ts';
export { MASK, maskSecrets, maskText } from './mask.ts';
export { VAULT_NAME, VAULT_NAME_RULE, isVaultPointer, pointerName, vaultPointer } from './pointer.ts';

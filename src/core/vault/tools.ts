import { z } from 'zod';
import { RefusedBeforeEffect } from '../effects/index.ts';
import { defineTool } from '../tools/index.ts';
import { VaultDisabledError } from './errors.ts';
import { VAULT_NAME, VAULT_NAME_RULE, vaultPointer } from '../secrets/index.ts';
import type { Vault } from './vault.ts';

type VaultTools = Pick<Vault, 'enabled' | 'put' | 'get' | 'list' | 'has' | 'remove'>;

const name = z
  .string()
  .regex(VAULT_NAME, { message: `use ${VAULT_NAME_RULE}` })
  .describe("The secret's name, e.g. github-token");

/**
 * `vault_store`, `vault_list`, `vault_retrieve`, `vault_delete`: the agent's way into the vault.
 *
 * - `vault_list` (safe): names only, never values.
 * - `vault_store` (safe, effects): adds a new name and never replaces one. A taken name is refused
 *   in the precheck (before any card) rather than put to a person: an approval card would show the
 *   value to every approver, and replacing a secret that config points at changes what Kazma logs in
 *   with — that is for `kazma vault set` at the shell. Storing something the model already holds
 *   reveals nothing new, so it needs no approval.
 * - `vault_retrieve` (danger): hands a stored value to the model; a person approves each one.
 * - `vault_delete` (danger): cannot be undone; a person approves each one.
 *
 * With no `KAZMA_VAULT_KEY` every one is refused before anything runs, saying how to enable the vault.
 */
export function vaultTools(vault: VaultTools) {
  const enabled = () => {
    if (!vault.enabled) throw new RefusedBeforeEffect(new VaultDisabledError('this tool').message);
  };
  const known = async (wanted: string) => {
    enabled();
    if (await vault.has(wanted)) return;
    const names = await vault.list();
    throw new RefusedBeforeEffect(
      `there is no secret named "${wanted}"; stored: ${names.length > 0 ? names.join(', ') : 'none'}`,
    );
  };
  return [
    defineTool({
      name: 'vault_list',
      description:
        'Lists the names of the secrets in the vault (never their values). A config value or a tool may refer to ' +
        'one as vault://<name>.',
      tier: 'safe',
      effects: false,
      outside: false,
      input: z.object({}),
      precheck: enabled,
      run: async () => {
        const names = await vault.list();
        return names.length > 0 ? `Secrets in the vault (${names.length}): ${names.join(', ')}` : 'The vault is empty.';
      },
    }),
    defineTool({
      name: 'vault_store',
      description:
        'Stores a new secret in the vault under a new name and returns its vault:// pointer. Never replaces an ' +
        'existing name (delete it first, or pick another name).',
      tier: 'safe',
      effects: true,
      outside: false,
      input: z.object({ name, value: z.string().min(1).max(16_384).describe('The secret itself') }),
      async precheck({ name: wanted }) {
        enabled();
        if (await vault.has(wanted))
          throw new RefusedBeforeEffect(
            `a secret named "${wanted}" already exists and is not replaced; choose another name, or delete it first ` +
              `with vault_delete (needs approval)`,
          );
      },
      async run({ name: wanted, value }) {
        // Insert-only: a name taken since the precheck is refused, not overwritten.
        if ((await vault.put(wanted, value, { overwrite: false })) === 'exists')
          throw new RefusedBeforeEffect(`a secret named "${wanted}" already exists and is not replaced`);
        return `Stored the secret as ${vaultPointer(wanted)}.`;
      },
    }),
    defineTool({
      name: 'vault_retrieve',
      description: 'Returns the value of a secret in the vault. A person must approve every retrieval.',
      tier: 'danger',
      effects: false,
      outside: false,
      input: z.object({ name }),
      precheck: ({ name: wanted }) => known(wanted),
      run: ({ name: wanted }) => vault.get(wanted),
    }),
    defineTool({
      name: 'vault_delete',
      description: 'Deletes a secret from the vault for good. A person must approve it.',
      tier: 'danger',
      effects: true,
      outside: false,
      input: z.object({ name }),
      precheck: ({ name: wanted }) => known(wanted),
      async run({ name: wanted }) {
        return (await vault.remove(wanted))
          ? `Deleted the secret "${wanted}".`
          : `There was no secret named "${wanted}"; nothing was deleted.`;
      },
    }),
  ];
}

import { asc, eq, sql } from 'drizzle-orm';
import { type Db, vaultSecrets } from '../db/index.ts';
import { DEFAULT_ITERATIONS, openSealed, seal } from './cipher.ts';
import {
  VaultDisabledError,
  VaultNameError,
  VaultTamperedError,
  VaultUnknownNameError,
  VaultWrongKeyError,
} from './errors.ts';
import { unlockKeyring } from './keyring.ts';
import { isVaultPointer, pointerName, VAULT_NAME, vaultPointer } from '../secrets/index.ts';
import type { VaultPort } from './port.ts';

/** Options for {@link Vault}. */
export interface VaultOptions {
  db: Db;
  /** `KAZMA_VAULT_KEY`; undefined or empty disables the vault. */
  passphrase: string | undefined;
  /**
   * PBKDF2 iterations for a vault created by this process. Default 600,000. An existing vault keeps
   * the count it was created with. Lower only in tests: it is what makes a stolen database slow to guess.
   */
  iterations?: number;
}

/** How {@link Vault.put} went: a new name, a replaced value, or (without `overwrite`) a name already taken. */
export type PutResult = 'stored' | 'updated' | 'exists';

// The additional data binding a record to its name: a ciphertext copied under another name fails.
const recordAad = (name: string) => `kazma-vault:v1:secret:${name}`;

/**
 * The secret vault: values sealed with AES-256-GCM under a key derived once (PBKDF2) from
 * `KAZMA_VAULT_KEY` and cached for the life of the process. Never logs; a value leaves only through
 * {@link get} and {@link resolve}.
 *
 * @example
 * const vault = new Vault({ db, passphrase: loaded.env.KAZMA_VAULT_KEY });
 * const pointer = await vault.stash('github-token', 'ghp_…'); // 'vault://github-token'
 * await vault.resolve(pointer);                             // 'ghp_…'
 */
export class Vault implements VaultPort {
  readonly enabled: boolean;
  #key: Promise<Buffer> | undefined;

  constructor(private readonly o: VaultOptions) {
    this.enabled = Boolean(o.passphrase);
  }

  /** Derives and checks the key now (it is otherwise derived at first use); throws `VaultWrongKeyError`. */
  async unlock(): Promise<void> {
    await this.#unlocked();
  }

  async resolve(value: string): Promise<string> {
    return isVaultPointer(value) ? this.get(pointerName(value)) : value;
  }

  async stash(name: string, value: string): Promise<string> {
    await this.put(name, value, { overwrite: true });
    return vaultPointer(name);
  }

  /** Stores `value` under `name`; without `overwrite`, a taken name is left alone and `exists` returned. */
  async put(name: string, value: string, options: { overwrite: boolean }): Promise<PutResult> {
    checkName(name);
    const sealed = seal(await this.#unlocked(), value, recordAad(name));
    const insert = this.o.db.insert(vaultSecrets).values({ name, sealed });
    if (!options.overwrite)
      return (await insert.onConflictDoNothing().returning({ name: vaultSecrets.name })).length > 0
        ? 'stored'
        : 'exists';
    const existed = await this.has(name);
    await insert.onConflictDoUpdate({ target: vaultSecrets.name, set: { sealed, updatedAt: sql`now()` } });
    return existed ? 'updated' : 'stored';
  }

  /** The secret stored as `name`; throws `VaultUnknownNameError` or `VaultTamperedError`. */
  async get(name: string): Promise<string> {
    checkName(name);
    const key = await this.#unlocked();
    const [row] = await this.o.db.select().from(vaultSecrets).where(eq(vaultSecrets.name, name));
    if (!row) throw new VaultUnknownNameError(name, await this.list());
    const value = openSealed(key, row.sealed, recordAad(name));
    if (value === undefined) throw new VaultTamperedError(name);
    return value;
  }

  /** Names of the stored secrets, sorted; never their values. Needs the key, so a wrong one is said at once. */
  async list(): Promise<string[]> {
    await this.#unlocked();
    const rows = await this.o.db.select({ name: vaultSecrets.name }).from(vaultSecrets).orderBy(asc(vaultSecrets.name));
    return rows.map((r) => r.name);
  }

  async has(name: string): Promise<boolean> {
    await this.#unlocked();
    const rows = await this.o.db
      .select({ name: vaultSecrets.name })
      .from(vaultSecrets)
      .where(eq(vaultSecrets.name, name));
    return rows.length > 0;
  }

  /** Deletes `name`; false when there was no such secret. */
  async remove(name: string): Promise<boolean> {
    checkName(name);
    await this.#unlocked();
    const rows = await this.o.db
      .delete(vaultSecrets)
      .where(eq(vaultSecrets.name, name))
      .returning({ name: vaultSecrets.name });
    return rows.length > 0;
  }

  #unlocked(): Promise<Buffer> {
    const passphrase = this.o.passphrase;
    if (!passphrase) return Promise.reject(new VaultDisabledError());
    this.#key ??= unlockKeyring(this.o.db, passphrase, this.o.iterations ?? DEFAULT_ITERATIONS).catch(
      (error: unknown) => {
        // A wrong key stays wrong (kept, so it is not derived again per call), but a database hiccup
        // must not disable the vault for good.
        if (!(error instanceof VaultWrongKeyError)) this.#key = undefined;
        throw error;
      },
    );
    return this.#key;
  }
}

function checkName(name: string): void {
  if (!VAULT_NAME.test(name)) throw new VaultNameError(name);
}

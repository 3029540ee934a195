import { eq } from 'drizzle-orm';
import { type Db, vaultKeyring } from '../db/index.ts';
import { deriveKey, newSalt, openSealed, seal } from './cipher.ts';
import { VaultWrongKeyError } from './errors.ts';

// The verifier is this text sealed under the key. Opening it proves the passphrase right before any
// record is touched, so a wrong key and a damaged record are told apart.
const VERIFIER_TEXT = 'kazma vault verifier';
const VERIFIER_AAD = 'kazma-vault:v1:verifier';
const ROW = 1;

/**
 * Derives the vault key from `passphrase` and checks it against the install's verifier.
 *
 * Inputs: the passphrase, and the iteration count to use when this is the install's first unlock.
 * Output: the 32-byte key. Throws {@link VaultWrongKeyError} when the verifier does not open.
 * Invariants: one keyring row per install; the first unlock creates it (random salt, verifier) with
 * `insert … on conflict do nothing`, so two processes unlocking at once agree on the row that won.
 * Later unlocks use the row's own iteration count, so changing the default never locks a vault.
 */
export async function unlockKeyring(db: Db, passphrase: string, iterations: number): Promise<Buffer> {
  let row = await readRow(db);
  let created: { salt: string; key: Buffer } | undefined;
  if (!row) {
    const salt = newSalt();
    const key = await deriveKey(passphrase, salt, iterations);
    created = { salt: salt.toString('base64'), key };
    await db
      .insert(vaultKeyring)
      .values({ id: ROW, salt: created.salt, iterations, verifier: seal(key, VERIFIER_TEXT, VERIFIER_AAD) })
      .onConflictDoNothing();
    row = await readRow(db);
    if (!row) throw new Error('the vault keyring row vanished right after it was written');
  }
  // Reuse the key just derived when our row won; else derive against the row that is there.
  const key =
    created?.salt === row.salt
      ? created.key
      : await deriveKey(passphrase, Buffer.from(row.salt, 'base64'), row.iterations);
  if (openSealed(key, row.verifier, VERIFIER_AAD) !== VERIFIER_TEXT) throw new VaultWrongKeyError();
  return key;
}

async function readRow(db: Db) {
  const [row] = await db.select().from(vaultKeyring).where(eq(vaultKeyring.id, ROW));
  return row;
}

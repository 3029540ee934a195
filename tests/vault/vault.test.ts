// The vault itself, on both backends: a round trip (once at the real 600,000 iterations), a wrong key
// told apart from a damaged record, tampered and swapped ciphertexts refused, and a disabled vault
// that says how to enable it.
import { eq } from 'drizzle-orm';
import { beforeEach, expect, it } from 'vitest';
import { vaultKeyring, vaultSecrets } from '../../src/core/db/schema/vault.ts';
import {
  Vault,
  VaultDisabledError,
  VaultNameError,
  VaultTamperedError,
  VaultUnknownNameError,
  VaultWrongKeyError,
} from '../../src/core/vault/index.ts';
import { describeEachBackend } from '../helpers/databases.ts';

const KEY = 'correct horse battery staple';
// Fast for the many tests; one test below runs at the real default.
const FAST = 1_000;

describeEachBackend('vault', (database) => {
  const db = () => database().db;
  const vault = (passphrase: string | undefined = KEY, iterations = FAST) =>
    new Vault({ db: db(), passphrase, iterations });
  const sealedOf = async (name: string) =>
    (await db().select().from(vaultSecrets).where(eq(vaultSecrets.name, name)))[0]!.sealed;

  beforeEach(async () => {
    await db().delete(vaultSecrets);
    await db().delete(vaultKeyring);
  });

  it('round trip: stash returns the pointer, resolve gives the value back, other text passes as is', async () => {
    const v = vault();
    const secret = 'ghp_مفتاح-🔑-0123456789';
    expect(await v.stash('github-token', secret)).toBe('vault://github-token');
    expect(await v.resolve('vault://github-token')).toBe(secret);
    expect(await v.resolve('plain text')).toBe('plain text');
    // Another process (a new instance) derives the key again from the stored salt and reads it.
    expect(await vault().get('github-token')).toBe(secret);
    const sealed = await sealedOf('github-token');
    expect(sealed).not.toContain(secret);
    expect(sealed).toMatch(/^v1:/);
    // nonce(12) + tag(16) + the ciphertext, as long as the UTF-8 plaintext.
    expect(Buffer.from(sealed.slice(3), 'base64').length).toBe(12 + 16 + Buffer.byteLength(secret));
  });

  it('round trip at the real 600,000 PBKDF2 iterations, recorded with the install', async () => {
    const v = new Vault({ db: db(), passphrase: KEY });
    await v.stash('api', 'sk-live-abcdef');
    const [row] = await db().select().from(vaultKeyring);
    expect(row!.iterations).toBe(600_000);
    expect(Buffer.from(row!.salt, 'base64').length).toBe(32);
    expect(await new Vault({ db: db(), passphrase: KEY }).resolve('vault://api')).toBe('sk-live-abcdef');
  });

  it('keeps the iteration count a vault was created with, whatever a later process is told', async () => {
    await vault(KEY, FAST).stash('a', 'value-a');
    expect(await vault(KEY, 2 * FAST).get('a')).toBe('value-a');
  });

  it('seals with a fresh random nonce per record: one value stored twice gives two ciphertexts', async () => {
    const v = vault();
    await v.stash('one', 'same value');
    await v.stash('two', 'same value');
    expect(await sealedOf('one')).not.toBe(await sealedOf('two'));
  });

  it('a wrong key fails with a clear typed error, on reading and on writing, and writes nothing', async () => {
    await vault().stash('db-password', 'hunter2-hunter2');
    const wrong = vault('not the passphrase');
    for (const attempt of [
      () => wrong.get('db-password'),
      () => wrong.resolve('vault://db-password'),
      () => wrong.list(),
      () => wrong.stash('other', 'x'),
    ]) {
      const error = await attempt().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(VaultWrongKeyError);
      expect((error as Error).message).toMatch(/^KAZMA_VAULT_KEY does not open this vault/);
      expect((error as Error).message).not.toMatch(/unable to authenticate|Unsupported state/);
    }
    expect((await db().select().from(vaultSecrets)).map((r) => r.name)).toEqual(['db-password']);
  });

  it('rejects a tampered ciphertext with a clear typed error naming the record', async () => {
    const v = vault();
    await v.stash('token', 'a-token-value');
    const bytes = Buffer.from((await sealedOf('token')).slice(3), 'base64');
    bytes[bytes.length - 1]! ^= 0x01;
    await db()
      .update(vaultSecrets)
      .set({ sealed: `v1:${bytes.toString('base64')}` })
      .where(eq(vaultSecrets.name, 'token'));
    const error = await v.get('token').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VaultTamperedError);
    expect((error as Error).message).toContain('The vault record "token" failed its integrity check');
    for (const garbage of ['v1:', 'v2:AAAA', 'not base64 at all']) {
      await db().update(vaultSecrets).set({ sealed: garbage }).where(eq(vaultSecrets.name, 'token'));
      await expect(v.get('token')).rejects.toBeInstanceOf(VaultTamperedError);
    }
  });

  it('binds a record to its name: a ciphertext copied under another name does not open', async () => {
    const v = vault();
    await v.stash('admin-token', 'the-admin-token');
    await v.stash('guest-token', 'the-guest-token');
    await db()
      .update(vaultSecrets)
      .set({ sealed: await sealedOf('admin-token') })
      .where(eq(vaultSecrets.name, 'guest-token'));
    await expect(v.get('guest-token')).rejects.toBeInstanceOf(VaultTamperedError);
    expect(await v.get('admin-token')).toBe('the-admin-token');
  });

  it('an unknown name says which names there are; an invalid name says the rule', async () => {
    const v = vault();
    await v.stash('b', 'value-b');
    await v.stash('a', 'value-a');
    const error = await v.resolve('vault://c').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VaultUnknownNameError);
    expect((error as Error).message).toBe(
      'There is no secret named "c" in the vault. Stored: a, b. Store it with: kazma vault set c',
    );
    await expect(v.resolve('vault://../etc')).rejects.toBeInstanceOf(VaultNameError);
    await expect(v.stash('has space', 'x')).rejects.toThrow(/"has space" is not a valid vault name: use 1-128 letters/);
  });

  it('put without overwrite leaves a taken name alone; stash replaces it; remove deletes it', async () => {
    const v = vault();
    expect(await v.put('n', 'first', { overwrite: false })).toBe('stored');
    expect(await v.put('n', 'second', { overwrite: false })).toBe('exists');
    expect(await v.get('n')).toBe('first');
    expect(await v.put('n', 'third', { overwrite: true })).toBe('updated');
    expect(await v.get('n')).toBe('third');
    expect(await v.list()).toEqual(['n']);
    expect(await v.remove('n')).toBe(true);
    expect(await v.remove('n')).toBe(false);
    expect(await v.list()).toEqual([]);
  });

  it('two processes opening a new vault at once agree on one keyring', async () => {
    const [a, b] = [vault(), vault()];
    await Promise.all([a.stash('from-a', 'value-a'), b.stash('from-b', 'value-b')]);
    expect(await db().select().from(vaultKeyring)).toHaveLength(1);
    expect(await vault().get('from-a')).toBe('value-a');
    expect(await vault().get('from-b')).toBe('value-b');
  });

  it('without KAZMA_VAULT_KEY the vault is disabled and says how to enable it', async () => {
    for (const passphrase of [undefined, '']) {
      const v = new Vault({ db: db(), passphrase, iterations: FAST });
      expect(v.enabled).toBe(false);
      expect(await v.resolve('not a pointer')).toBe('not a pointer');
      const error = await v.resolve('vault://x').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(VaultDisabledError);
      expect((error as Error).message).toMatch(/The secret vault is disabled: set KAZMA_VAULT_KEY/);
      await expect(v.stash('x', 'y')).rejects.toBeInstanceOf(VaultDisabledError);
    }
    expect(await db().select().from(vaultKeyring)).toEqual([]);
  });
});

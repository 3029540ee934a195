import { sql } from 'drizzle-orm';
import { check, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The vault's one row of key material: the install's random PBKDF2 salt, the iteration count it was
 * created with (so a later default change never locks an old vault), and a verifier — a known
 * plaintext sealed with the derived key — so a wrong `KAZMA_VAULT_KEY` is reported as such instead of
 * as a broken record. Never holds the key itself. `id` is always 1 (the check keeps it that way).
 */
export const vaultKeyring = pgTable(
  'vault_keyring',
  {
    id: integer('id').primaryKey(),
    salt: text('salt').notNull(),
    iterations: integer('iterations').notNull(),
    verifier: text('verifier').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [check('vault_keyring_single_row', sql`${t.id} = 1`)],
);

/**
 * One secret per name, sealed with AES-256-GCM: `sealed` is base64 of `nonce(12) | tag(16) | ciphertext`,
 * with the name bound as additional data so a record copied under another name does not open.
 */
export const vaultSecrets = pgTable('vault_secrets', {
  name: text('name').primaryKey(),
  sealed: text('sealed').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

// AES-256-GCM and PBKDF2-HMAC-SHA256 from node:crypto, and nothing else: the only place the vault's
// bytes are made or opened.
import { createCipheriv, createDecipheriv, pbkdf2, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';

const pbkdf2Async = promisify(pbkdf2);

/** OWASP's 2023 figure for PBKDF2-HMAC-SHA256; ~150 ms once per process on this project's machines. */
export const DEFAULT_ITERATIONS = 600_000;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
/** Version of the sealed format; a change of cipher or layout gets a new prefix. */
const FORMAT = 'v1:';

/** A fresh random 32-byte salt, one per install. */
export function newSalt(): Buffer {
  return randomBytes(32);
}

/**
 * The 32-byte AES key from the passphrase. Asynchronous (the libuv pool), so ~150 ms of hashing does
 * not stall the event loop; callers derive once and cache.
 */
export function deriveKey(passphrase: string, salt: Buffer, iterations: number): Promise<Buffer> {
  return pbkdf2Async(passphrase.normalize('NFC'), salt, iterations, KEY_BYTES, 'sha256');
}

/**
 * Encrypts `plaintext` with a fresh random nonce. `aad` is authenticated, not stored: the same `aad`
 * must be given to {@link openSealed}, which is how a record is bound to its name.
 * Output: `v1:` + base64 of `nonce(12) | tag(16) | ciphertext`.
 */
export function seal(key: Buffer, plaintext: string, aad: string): string {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return FORMAT + Buffer.concat([nonce, cipher.getAuthTag(), body]).toString('base64');
}

/**
 * Decrypts what {@link seal} made, or returns undefined when it does not authenticate (wrong key,
 * changed bytes, other `aad`, unknown format). The caller decides what that means; OpenSSL's own
 * message ("Unsupported state or unable to authenticate data") helps nobody.
 */
export function openSealed(key: Buffer, sealed: string, aad: string): string | undefined {
  if (!sealed.startsWith(FORMAT)) return undefined;
  const bytes = Buffer.from(sealed.slice(FORMAT.length), 'base64');
  if (bytes.length < NONCE_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, NONCE_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(bytes.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
    const body = bytes.subarray(NONCE_BYTES + TAG_BYTES);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

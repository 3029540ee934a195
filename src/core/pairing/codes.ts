import { randomInt } from 'node:crypto';

/** Letters and digits with no look-alikes (no 0/O, 1/I/L): a code read aloud or retyped stays the code. */
export const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const CODE_LENGTH = 8;

/** A fresh pairing code: 8 characters from {@link CODE_ALPHABET}, drawn by the operating system's CSPRNG. */
export function newPairingCode(): string {
  return Array.from({ length: CODE_LENGTH }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('');
}

/**
 * A code as typed (`abcd-2345`, ` ABCD 2345 `) in its stored form, or undefined when it cannot be one: a
 * wrong code is refused without a database read.
 */
export function normaliseCode(typed: string): string | undefined {
  const code = typed.replace(/[\s-]/g, '').toUpperCase();
  if (code.length !== CODE_LENGTH) return undefined;
  return [...code].every((c) => CODE_ALPHABET.includes(c)) ? code : undefined;
}

import { createHmac, timingSafeEqual } from 'node:crypto';

/** HMAC-SHA256 of `text` keyed by the install's secret (`KAZMA_SECRET`), hex. */
export function hmacHex(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text).digest('hex');
}

/**
 * Compares two hex digests in constant time: an attacker timing the refusal learns nothing about how
 * much of a forged value was right. Different lengths are unequal without a comparison.
 */
export function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

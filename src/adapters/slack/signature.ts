// Slack signs every request it sends to the Request URL: `v0=` + hex HMAC-SHA256 of `v0:<timestamp>:<raw
// body>` with the app's signing secret. The check runs on the exact bytes received, before any parsing,
// and rejects timestamps more than five minutes away in EITHER direction (Bolt's own check rejects only
// old ones), so a captured request cannot be replayed later, nor one pre-signed for the future.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far a request's timestamp may be from our clock, in seconds (Slack's recommendation). */
export const SIGNATURE_WINDOW_SECONDS = 300;

export type SignatureVerdict = { ok: true } | { ok: false; reason: string };

/** One request as received. `nowMs` is the clock seam; default Date.now(). */
export interface SignedRequest {
  secret: string;
  timestamp: string | undefined;
  signature: string | undefined;
  rawBody: string;
  nowMs?: number;
}

/**
 * Verifies a request's signature and freshness; the reason names what was wrong (for the log only).
 * @example verifySlackSignature({ secret, timestamp: '1700000000', signature: 'v0=ab…', rawBody })
 * // { ok: false, reason: '…' }
 */
export function verifySlackSignature(request: SignedRequest): SignatureVerdict {
  const { secret, timestamp, signature, rawBody } = request;
  if (!secret) return { ok: false, reason: 'no signing secret is configured (slack.signing_secret)' };
  if (!timestamp || !signature)
    return { ok: false, reason: 'X-Slack-Signature or X-Slack-Request-Timestamp is missing' };
  if (!/^\d{1,12}$/.test(timestamp))
    return { ok: false, reason: 'X-Slack-Request-Timestamp is not a number of seconds' };
  const skew = Math.abs((request.nowMs ?? Date.now()) / 1000 - Number(timestamp));
  if (skew > SIGNATURE_WINDOW_SECONDS)
    return {
      ok: false,
      reason: `the timestamp is ${Math.round(skew)} s from our clock (allowed: ${SIGNATURE_WINDOW_SECONDS})`,
    };
  if (!/^v0=[0-9a-f]{64}$/.test(signature)) return { ok: false, reason: 'X-Slack-Signature is not a v0 signature' };
  const expected = createHmac('sha256', secret).update(`v0:${timestamp}:${rawBody}`).digest();
  const given = Buffer.from(signature.slice(3), 'hex');
  return timingSafeEqual(expected, given)
    ? { ok: true }
    : { ok: false, reason: 'the signature does not match (wrong slack.signing_secret, or the body was altered)' };
}

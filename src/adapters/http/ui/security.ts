import type { Context, MiddlewareHandler } from 'hono';

/**
 * Every answer under `/ui`: scripts only from this origin (the page has no inline script, so none can be
 * injected into it), no framing (clickjacking a Deny into an Approve), no MIME sniffing, no Referer that
 * carries a page's address to another site. Pages are never cached; hashed assets set their own caching.
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  c.header('content-security-policy', CSP);
  c.header('x-frame-options', 'DENY');
  c.header('x-content-type-options', 'nosniff');
  // Not `no-referrer`: with it Chromium sends `Origin: null` on the page's own form posts, which the
  // same-origin check must refuse. `same-origin` still sends nothing to any other site.
  c.header('referrer-policy', 'same-origin');
  c.header('cross-origin-opener-policy', 'same-origin');
  if (!c.res.headers.has('cache-control')) c.header('cache-control', 'no-store');
};

/**
 * Whether the session cookie is sent only over https: when this request came over https (directly, or a
 * proxy says so in X-Forwarded-Proto, which can only make the cookie stricter), or `http.secure_cookies`.
 */
export function secureRequest(c: Context, secureCookies: boolean): boolean {
  if (secureCookies) return true;
  if (new URL(c.req.url).protocol === 'https:') return true;
  return c.req.header('x-forwarded-proto')?.split(',')[0]?.trim() === 'https';
}

/**
 * A state-changing request from another site is refused before its CSRF token is even read: browsers send
 * `Origin` on every POST, and a page of another origin cannot forge it. (A request without `Origin` — not a
 * browser — still needs the session cookie and the CSRF token.)
 */
export function foreignOrigin(c: Context): boolean {
  const origin = c.req.header('origin');
  if (origin === undefined) return false;
  const host = c.req.header('x-forwarded-host') ?? c.req.header('host');
  try {
    return new URL(origin).host !== host;
  } catch {
    return true;
  }
}

import { getConnInfo } from '@hono/node-server/conninfo';
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { Clock } from '../../../core/clock.ts';
import type { Db } from '../../../core/db/index.ts';
import { ApiTokens, type ApiTokenOptions } from '../api-tokens.ts';
import { uiActions } from './actions.ts';
import { ASSETS } from './assets.ts';
import { LiveStreams } from './live.ts';
import type { UiCore } from './port.ts';
import { SignInLimiter, type SignInLimits } from './rate-limit.ts';
import { render, PAGES } from './render.tsx';
import { foreignOrigin, secureRequest, securityHeaders } from './security.ts';
import { sameText, type UiSession, UiSessions } from './sessions.ts';
import { signInView } from './sign-in-view.tsx';

/** Options for {@link webUi}: the tokens that sign in (see {@link ApiTokenOptions}) and the core. */
export interface WebUiOptions extends ApiTokenOptions {
  core: UiCore;
  db: Db;
  clock: Clock;
  /** `ui.session_ttl`. */
  sessionTtlMs: number;
  /** `http.secure_cookies`. */
  secureCookies: boolean;
  limits?: SignInLimits;
}

/** Per request, once signed in. */
export type UiEnv = { Variables: { session: UiSession; cookie: string } };

const COOKIE = 'kazma_ui';

/**
 * The operators' web page at `/ui`: sign-in with an API token, then server-rendered pages (approvals,
 * history, tasks, incidents, tools, settings) whose forms act through the same core calls as chat taps and
 * commands, and one server-sent event stream that redraws the page when anything changes. Before sign-in
 * only the sign-in page and the static assets answer. `stop()` ends the open event streams.
 */
export function webUi(options: WebUiOptions): { app: Hono<UiEnv>; stop(): void } {
  const app = new Hono<UiEnv>();
  const tokens = new ApiTokens(options);
  const sessions = new UiSessions({ db: options.db, tokens, ttlMs: options.sessionTtlMs, clock: options.clock });
  const limiter = new SignInLimiter(options.limits);
  const live = new LiveStreams(options.core);
  const forms = bodyLimit({ maxSize: 16 * 1024, onError: (c) => c.text('A form is at most 16 KB.', 413) });

  app.use('/ui', securityHeaders);
  app.use('/ui/*', securityHeaders);
  for (const asset of Object.values(ASSETS))
    app.get(asset.path, (c) =>
      c.body(asset.body, 200, { 'content-type': asset.type, 'cache-control': 'public, max-age=31536000, immutable' }),
    );

  app.get('/ui/sign-in', async (c) => {
    if (await sessions.find(getCookie(c, COOKIE))) return c.redirect('/ui/approvals', 303);
    return c.html(await render.document('Sign in', signInView()));
  });
  app.post('/ui/sign-in', forms, async (c) => {
    if (foreignOrigin(c)) return c.text('Refused: this form was sent from another site.', 403);
    const address = clientAddress(c);
    const wait = limiter.retryAfter(address);
    if (wait > 0) {
      c.header('retry-after', String(wait));
      const notice = { ok: false, message: `Too many failed sign-ins: try again in ${wait} s.` };
      return c.html(await render.document('Sign in', signInView(notice)), 429);
    }
    const form = await c.req.parseBody();
    const token = typeof form.token === 'string' ? form.token.trim() : '';
    const caller = token ? tokens.identify(`Bearer ${token}`) : undefined;
    if (!caller) {
      limiter.failed(address);
      const notice = { ok: false, message: 'That token is not an operator’s api_token nor http.api_token.' };
      return c.html(await render.document('Sign in', signInView(notice)), 401);
    }
    const { cookie, session } = await sessions.open(caller);
    setCookie(c, COOKIE, cookie, {
      path: '/ui',
      httpOnly: true,
      sameSite: 'Strict',
      secure: secureRequest(c, options.secureCookies),
      expires: session.expiresAt,
    });
    return c.redirect('/ui/approvals', 303);
  });

  app.use('/ui/*', forms);
  // Everything below needs a session: a page is sent to sign-in, anything else is 401, and nothing is shown.
  app.use('/ui/*', async (c, next) => {
    const cookie = getCookie(c, COOKIE);
    const session = await sessions.find(cookie);
    if (!session) {
      const page = c.req.method === 'GET' && !c.req.header('x-kazma-part') && c.req.path !== '/ui/events';
      return page ? c.redirect('/ui/sign-in', 303) : c.text('Sign in first.', 401);
    }
    c.set('session', session);
    c.set('cookie', cookie!);
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      if (foreignOrigin(c)) return c.text('Refused: this form was sent from another site.', 403);
      const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
      const csrf = typeof form._csrf === 'string' ? form._csrf : (c.req.header('x-csrf-token') ?? '');
      if (!sameText(csrf, session.csrf))
        return c.text('Refused: the form has no valid CSRF token; reload the page.', 403);
    }
    return next();
  });
  app.get('/ui', (c) => c.redirect('/ui/approvals', 303));
  app.post('/ui/sign-out', async (c) => {
    await sessions.close(c.get('cookie'));
    deleteCookie(c, COOKIE, { path: '/ui' });
    return c.redirect('/ui/sign-in', 303);
  });
  app.get('/ui/events', (c) => live.stream(c, c.get('session').expiresAt, options.clock.now()));
  for (const [path, page] of Object.entries(PAGES)) app.get(`/ui/${path}`, (c) => render.page(c, options.core, page));
  app.route('/', uiActions(options.core));
  return { app, stop: () => live.stop() };
}

/** The peer's address (a reverse proxy's, when behind one: then every sign-in shares one limit). */
function clientAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown'; // not served by @hono/node-server (app.request in tests)
  }
}

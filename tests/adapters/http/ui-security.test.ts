// The web page's shape, through its real Hono app on a real Kazma (startAssembled: PGlite, Redis): nothing
// before sign-in, sign-in with a token (refused and rate-limited when wrong), the cookie's flags, the
// security headers, CSRF on every POST, read-only sessions, and sessions ended by rotating the token.
import { afterEach, describe, expect, it } from 'vitest';
import { settings } from '../../../src/core/db/index.ts';
import { freshDatabase, type FreshDatabase } from '../../helpers/databases.ts';
import { startAssembled, type Assembled } from '../../helpers/assembled.ts';

const MAYA_TOKEN = 'maya-web-token-0123456789abcdef';
const READ_TOKEN = 'shared-read-token-0123456789ab';
const config = (mayaToken = MAYA_TOKEN) => ({
  access: { operators: [{ name: 'maya', telegram: '42', api_token: mayaToken }] },
  http: { api_token: READ_TOKEN },
});

const running: Assembled[] = [];
const databases: FreshDatabase[] = [];
afterEach(async () => {
  for (const k of running.splice(0)) await k.close();
  for (const d of databases.splice(0)) await d.dispose();
});

async function start(options: { mayaToken?: string; database?: FreshDatabase; extra?: object } = {}) {
  const k = await startAssembled(
    { ...config(options.mayaToken), ...options.extra },
    options.database ? { database: options.database } : {},
  );
  running.push(k);
  const base = `http://127.0.0.1:${k.kazma.http.port}`;
  const go = (path: string, init: RequestInit = {}) => fetch(`${base}${path}`, { redirect: 'manual', ...init });
  const signIn = (token: string) =>
    go('/ui/sign-in', { method: 'POST', body: new URLSearchParams({ token }), headers: { origin: base } });
  return { k, base, go, signIn };
}

const cookieOf = (answer: Response) => /kazma_ui=([^;]+)/.exec(answer.headers.get('set-cookie') ?? '')?.[1];
const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1];

describe('the web page at /ui', () => {
  it('shows nothing before sign-in: pages go to the sign-in form, parts and events are 401', async () => {
    const { go } = await start();
    for (const path of ['/ui', '/ui/approvals', '/ui/history', '/ui/tasks', '/ui/tools', '/ui/settings']) {
      const answer = await go(path);
      expect([path, answer.status, answer.headers.get('location')]).toEqual([path, 303, '/ui/sign-in']);
    }
    expect((await go('/ui/events')).status).toBe(401);
    expect((await go('/ui/approvals', { headers: { 'x-kazma-part': 'main' } })).status).toBe(401);
    const form = await go('/ui/sign-in');
    expect(form.status).toBe(200);
    const html = await form.text();
    expect(html).toContain('name="token"');
    expect(html).not.toContain('maya');
    // Every answer under /ui carries the security headers; the sign-in page loads no script.
    expect(form.headers.get('content-security-policy')).toMatch(/script-src 'self'.*frame-ancestors 'none'/);
    expect(form.headers.get('x-content-type-options')).toBe('nosniff');
    expect(form.headers.get('referrer-policy')).toBe('same-origin');
    expect(html).not.toMatch(/<script(?![^>]*src=)/);
  });

  it('refuses a wrong token, then rate-limits the address even for the right one', async () => {
    const { signIn } = await start();
    for (let i = 0; i < 5; i++) expect((await signIn(`wrong-${i}`)).status).toBe(401);
    const limited = await signIn(MAYA_TOKEN);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(cookieOf(limited)).toBeUndefined();
  });

  it('signs in with an HttpOnly, SameSite=Strict cookie; a POST needs the CSRF token and the same origin', async () => {
    const { go, base, signIn } = await start();
    const signedIn = await signIn(MAYA_TOKEN);
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('set-cookie')).toMatch(/HttpOnly/);
    expect(signedIn.headers.get('set-cookie')).toMatch(/SameSite=Strict/);
    expect(signedIn.headers.get('set-cookie')).not.toMatch(/Secure/); // plain http, secure_cookies off
    const cookie = `kazma_ui=${cookieOf(signedIn)}`;
    const page = await go('/ui/tools', { headers: { cookie } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('maya');
    const csrf = csrfOf(html)!;
    const toggle = (headers: Record<string, string>, body: Record<string, string>) =>
      go('/ui/tools/read_file', { method: 'POST', headers, body: new URLSearchParams(body) });
    const off = { on: 'false' };
    const tools = () => running[0]!.kazma.core.tools;
    expect((await toggle({ origin: base }, { ...off, _csrf: csrf })).status).toBe(401); // no session
    expect((await toggle({ cookie, origin: base }, off)).status).toBe(403); // no CSRF token
    expect((await toggle({ cookie, origin: base }, { ...off, _csrf: 'forged' })).status).toBe(403);
    expect((await toggle({ cookie, origin: 'https://evil.example' }, { ...off, _csrf: csrf })).status).toBe(403);
    expect(tools().disabled.has('read_file')).toBe(false);
    expect((await toggle({ cookie, origin: base }, { ...off, _csrf: csrf })).status).toBe(200);
    expect(tools().disabled.has('read_file')).toBe(true);
  });

  it('signs the shared read-only token in read-only: no buttons, and a POST changes nothing', async () => {
    const { go, base, signIn } = await start();
    const cookie = `kazma_ui=${cookieOf(await signIn(READ_TOKEN))}`;
    const html = await (await go('/ui/tools', { headers: { cookie } })).text();
    expect(html).toContain('read-only');
    expect(html).not.toContain('Turn off');
    const answer = await go('/ui/tools/read_file', {
      method: 'POST',
      headers: { cookie, origin: base },
      body: new URLSearchParams({ on: 'false', _csrf: csrfOf(html)! }),
    });
    expect(answer.status).toBe(403);
    expect(running[0]!.kazma.core.tools.disabled.has('read_file')).toBe(false);
  });

  it('serves assets by digest with a long cache, and ends sessions when the token rotates', async () => {
    const database = await freshDatabase('pglite');
    databases.push(database);
    const first = await start({ database });
    const cookie = `kazma_ui=${cookieOf(await first.signIn(MAYA_TOKEN))}`;
    const html = await (await first.go('/ui/approvals', { headers: { cookie } })).text();
    const script = /src="(\/ui\/assets\/live\.[0-9a-f]{12}\.js)"/.exec(html)![1]!;
    const asset = await first.go(script);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    await running.splice(0)[0]!.close();

    // The same database, maya's token rotated: her session is gone; the same token again would still work.
    const second = await start({ database, mayaToken: 'maya-rotated-token-9876543210fedcba' });
    expect((await second.go('/ui/approvals', { headers: { cookie } })).status).toBe(303);
  });

  it('adds an MCP server only for an operator, with the CSRF token, remote only, and only one that starts', async () => {
    const { go, base, signIn, k } = await start();
    const operator = `kazma_ui=${cookieOf(await signIn(MAYA_TOKEN))}`;
    const reader = `kazma_ui=${cookieOf(await signIn(READ_TOKEN))}`;
    const csrfFor = async (cookie: string) => csrfOf(await (await go('/ui/tools', { headers: { cookie } })).text())!;
    const readerHtml = await (await go('/ui/tools', { headers: { cookie: reader } })).text();
    expect(readerHtml).not.toContain('id="add-mcp"');
    const add = (cookie: string, body: Record<string, string>) =>
      go('/ui/mcp', { method: 'POST', headers: { cookie, origin: base }, body: new URLSearchParams(body) });
    // A port nobody listens on: the same check as `kazma mcp add` (connect, list the tools) fails.
    const closed = { name: 'nowhere', url: 'http://127.0.0.1:9/mcp', transport: 'streamable_http' };
    expect((await add(reader, { ...closed, _csrf: await csrfFor(reader) })).status).toBe(403);
    expect((await add(operator, closed)).status).toBe(403); // no CSRF token
    const csrf = await csrfFor(operator);
    const stdio = await add(operator, { name: 'local', command: 'node', transport: 'stdio', _csrf: csrf });
    expect(stdio.status).toBe(409);
    expect(await stdio.text()).toContain('only from the command line');
    const failed = await add(operator, { ...closed, _csrf: csrf });
    expect(failed.status).toBe(409);
    expect(await failed.text()).toMatch(/not saved: &quot;nowhere&quot; did not start/);
    const invalid = await add(operator, { name: 'bad__name', url: 'ftp://x', _csrf: csrf });
    expect(invalid.status).toBe(409);
    const saved = await k.kazma.database.db.select().from(settings);
    expect(saved.filter((row) => row.key.startsWith('mcp.'))).toEqual([]);
  });

  it('removes no stdio MCP server (the command line does), but switches one off; with the CSRF token only', async () => {
    // A server kazma.yaml names that runs a command here (one that exits at once: it never starts).
    const extra = { mcp: { servers: [{ name: 'local', transport: 'stdio', command: 'true' }] } };
    const { go, base, signIn } = await start({ extra });
    const operator = `kazma_ui=${cookieOf(await signIn(MAYA_TOKEN))}`;
    const html = await (await go('/ui/tools', { headers: { cookie: operator } })).text();
    expect(html).toContain('data-server="local"');
    expect(html).not.toContain('action="/ui/mcp/local/remove"');
    const csrf = csrfOf(html)!;
    const post = (path: string, body: Record<string, string>) =>
      go(path, { method: 'POST', headers: { cookie: operator, origin: base }, body: new URLSearchParams(body) });
    const removed = await post('/ui/mcp/local/remove', { _csrf: csrf });
    expect(removed.status).toBe(409);
    expect(await removed.text()).toContain('removed only from the command line (kazma mcp remove)');
    expect((await post('/ui/mcp/local/switch', { on: 'false' })).status).toBe(403); // no CSRF token
    const switched = await post('/ui/mcp/local/switch', { on: 'false', _csrf: csrf });
    expect(switched.status).toBe(200);
    expect(await switched.text()).toMatch(/data-server="local" data-state="[a-z]+" data-on="false"/);
    expect((await post('/ui/mcp/nobody/remove', { _csrf: csrf })).status).toBe(409);
  });
});

// What `npm start` serves: the built `kazma start` (dist/) on the embedded default (PGlite) serves the web
// page at /ui — nothing before sign-in, its hashed assets cached for good, an operator's token signs in and
// the approvals page answers. The browser tests (ui-browser.test.ts) drive the page itself in-process; this
// one shows the bundle carries it (the page's .tsx and embedded assets are built into dist/).
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { seedPgliteDataDir } from '../../helpers/databases.ts';
import { KazmaProcess, writeConfig } from '../../helpers/kazma-process.ts';

const TOKEN = 'maya-ui-process-token-0123456789';

let kazma: KazmaProcess | undefined;
afterEach(() => kazma?.kill('SIGKILL'));

it('the built kazma start serves /ui on the embedded default: sign-in first, then the approvals page', {
  timeout: 120_000,
}, async () => {
  const { dir, path } = writeConfig(`
http: { port: 0 }
access: { operators: [{ name: maya, api_token: "${TOKEN}" }] }
`);
  await seedPgliteDataDir(join(dir, 'kazma-data'));
  kazma = new KazmaProcess(['start', '--config', path], {
    cwd: dir,
    env: { DATABASE_URL: undefined, REDIS_URL: undefined },
  });
  const base = `http://127.0.0.1:${await kazma.port()}`;
  const get = (path: string, cookie = '') => fetch(`${base}${path}`, { redirect: 'manual', headers: { cookie } });

  // Nothing before sign-in: a page is sent to the sign-in form, showing nothing else.
  const before = await get('/ui/approvals');
  expect(before.status).toBe(303);
  expect(before.headers.get('location')).toBe('/ui/sign-in');
  const signIn = await get('/ui/sign-in');
  expect(signIn.status).toBe(200);
  const form = await signIn.text();
  expect(form).toContain('<title>Sign in · Kazma</title>');

  // Its assets, named by their hash, are cached for good.
  const assets = [...form.matchAll(/\/ui\/assets\/[\w.-]+\.[0-9a-f]{12}\.(?:css|js)/g)].map((m) => m[0]);
  expect(assets.length).toBeGreaterThan(0);
  for (const asset of assets) {
    const answer = await get(asset);
    expect(answer.status, asset).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  }

  const signedIn = await fetch(`${base}/ui/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base },
    body: new URLSearchParams({ token: TOKEN }),
  });
  expect(signedIn.status).toBe(303);
  const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
  const approvals = await get('/ui/approvals', cookie);
  expect(approvals.status).toBe(200);
  expect(await approvals.text()).toContain('<title>Approvals · Kazma</title>');
});

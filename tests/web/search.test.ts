// web_search: only offered with a provider; a fake SearXNG (and a fake Brave) answer through the egress
// guard; a provider on an internal address not opened by web.allow_private receives nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/core/config/index.ts';
import { createGuardList, guardsOnly } from '../../src/core/tools/guards/index.ts';
import { ToolRegistry } from '../../src/core/tools/registry.ts';
import { createWeb } from '../../src/core/web/module.ts';
import { startSearxng, startServer, type TestServer } from './servers.ts';

let searx: TestServer;
let brave: TestServer;
beforeAll(async () => {
  searx = await startSearxng();
  brave = await startServer((req, res, url) => {
    const ok = req.headers['x-subscription-token'] === 'brave-key-123456';
    res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        web: {
          results: [
            { title: `Brave: ${url.searchParams.get('q')}`, url: 'https://b.example/', description: 'snippet' },
          ],
        },
      }),
    );
  });
});
afterAll(async () => {
  await Promise.all([searx.close(), brave.close()]);
});

function web(config: Record<string, unknown>) {
  const loaded = parseConfig(JSON.stringify({ web: config }), { env: {}, baseDir: '/tmp' });
  const module = createWeb({ loaded });
  const registry = new ToolRegistry({ authorize: guardsOnly(createGuardList({ egress: module.guard })) });
  for (const tool of module.tools) registry.register(tool);
  return { registry, names: module.tools.map((t) => t.name) };
}

describe('web_search', () => {
  it('is not offered without a provider', () => {
    expect(web({}).names).toEqual(['web_fetch']);
  });

  it('SearXNG: numbered results, fenced as outside text', async () => {
    const { registry } = web({
      allow_private: [`127.0.0.1:${searx.port}`],
      search: { provider: 'searxng', url: searx.origin },
    });
    const result = await registry.execute('web_search', { query: 'pgvector' }, { workspace: '/tmp', env: {} });
    expect(result.ok).toBe(true);
    const output = result.ok ? result.output : '';
    expect(output).toMatch(/^«outside:[0-9a-f]{24}» Text from web_search follows/);
    expect(output).toContain('1. First about pgvector\n   https://one.example/a\n');
    expect(output).toContain('2. Second\n   https://two.example/b\n   a plain snippet');
  });

  it('Brave: the key goes in its header, never in the URL', async () => {
    const { registry } = web({
      allow_private: [`127.0.0.1:${brave.port}`],
      search: { provider: 'brave', url: `${brave.origin}/res/v1/web/search`, api_key: 'brave-key-123456' },
    });
    const result = await registry.execute(
      'web_search',
      { query: 'kazma' },
      { workspace: '/tmp', env: {}, secrets: ['brave-key-123456'] },
    );
    expect(result.ok && result.output).toContain('1. Brave: kazma');
    expect(brave.hits.at(-1)).toBe('GET /res/v1/web/search?q=kazma&count=5');
  });

  it('a provider on an internal address not in web.allow_private is refused and receives nothing', async () => {
    const { registry } = web({ search: { provider: 'searxng', url: searx.origin } });
    const before = searx.hits.length;
    const result = await registry.execute('web_search', { query: 'x' }, { workspace: '/tmp', env: {} });
    expect(result).toMatchObject({ ok: false, refused: true, error: expect.stringContaining('loopback') });
    expect(searx.hits.length).toBe(before);
  });

  it('a query carrying a secret is refused before it leaves', async () => {
    const { registry } = web({
      allow_private: [`127.0.0.1:${searx.port}`],
      search: { provider: 'searxng', url: searx.origin },
    });
    const before = searx.hits.length;
    const result = await registry.execute(
      'web_search',
      { query: 'sk-live-abcdefgh1234' },
      { workspace: '/tmp', env: {}, secrets: ['sk-live-abcdefgh1234'] },
    );
    expect(result).toMatchObject({ ok: false, refused: true, error: expect.stringContaining('a configured secret') });
    expect(searx.hits.length).toBe(before);
  });
});

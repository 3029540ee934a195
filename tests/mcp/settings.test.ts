// MCP settings: the server schema (transport from command/url, the `http` alias, trust refused in
// production), secrets moved into the real vault and resolved at connect time (an unresolvable pointer
// names its field), and run-time add/remove/switch over kazma.yaml.
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/core/config/index.ts';
import { McpSecretError } from '../../src/core/mcp/errors.ts';
import { mcpServerSchema } from '../../src/core/config/mcp-schema.ts';
import { maskServer, plainSecrets, resolveSecrets, stashSecrets } from '../../src/core/mcp/secrets.ts';
import { Vault } from '../../src/core/vault/index.ts';
import { freshDatabase, type FreshDatabase } from '../helpers/databases.ts';
import { everythingStdio, managerFor } from './servers.ts';

let database: FreshDatabase | undefined;
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
  await database?.dispose();
  database = undefined;
});

const parse = (servers: unknown[], env: Record<string, string> = {}) =>
  parseConfig(JSON.stringify({ mcp: { servers } }), { env, baseDir: '/tmp' });

describe('mcp.servers', () => {
  it('reads the transport from command or url, maps the http alias, and fills defaults', () => {
    const { config } = parse([
      { name: 'a', command: 'x' },
      { name: 'b', url: 'http://h/mcp' },
      { name: 'c', transport: 'http', url: 'https://h/mcp' },
      { name: 'd', transport: 'sse', url: 'http://h/sse' },
    ]);
    expect(config.mcp.servers.map((s) => s.transport)).toEqual(['stdio', 'streamable_http', 'streamable_http', 'sse']);
    expect(config.mcp.servers[0]).toMatchObject({
      trust: 'untrusted',
      enabled: true,
      sampling: false,
      args: [],
      env: {},
    });
  });

  it('refuses bad entries by key, duplicate names, and trust: trusted in production unless allowed', () => {
    expect(() => parse([{ name: 'has space', command: 'x' }])).toThrow(/mcp\.servers\[0\]\.name/);
    expect(() =>
      parse([
        { name: 'a', command: 'x' },
        { name: 'a', command: 'y' },
      ]),
    ).toThrow(/names must be unique/);
    const trusted = [{ name: 'a', command: 'x', trust: 'trusted' }];
    expect(() => parse(trusted, { KAZMA_PRODUCTION: '1' })).toThrow(
      /mcp\.servers\[0\]\.trust: "trusted" is refused when KAZMA_PRODUCTION=1/,
    );
    expect(parse(trusted, { KAZMA_PRODUCTION: '1', KAZMA_MCP_TRUSTED_IN_PROD: '1' }).config.mcp.servers[0]!.trust).toBe(
      'trusted',
    );
    expect(parse(trusted).config.mcp.servers[0]!.trust).toBe('trusted');
  });

  it('secrets go into the vault as pointers, resolve at connect time, and are masked for display', async () => {
    database = await freshDatabase('pglite');
    const vault = new Vault({ db: database.db, passphrase: 'test passphrase', iterations: 1000 });
    const stdio = mcpServerSchema.parse({
      name: 'gh',
      command: 'x',
      args: ['--api-key=sk-flag-0123456789', '--verbose'],
      env: { GITHUB_TOKEN: 'ghp_0123456789', MODE: 'fast' },
    });
    expect(plainSecrets(stdio)).toEqual(['env.GITHUB_TOKEN', 'args[0] (--api-key)']);
    const saved = await stashSecrets(stdio, vault);
    expect(saved).toMatchObject({
      env: { GITHUB_TOKEN: 'vault://mcp.gh.env.GITHUB_TOKEN', MODE: 'fast' },
      args: ['--api-key=vault://mcp.gh.args_0', '--verbose'],
    });
    expect(plainSecrets(saved)).toEqual([]);
    const { server, secrets } = await resolveSecrets(saved, vault);
    expect(server).toMatchObject({
      env: { GITHUB_TOKEN: 'ghp_0123456789' },
      args: ['--api-key=sk-flag-0123456789', '--verbose'],
    });
    expect(secrets.sort()).toEqual(['ghp_0123456789', 'sk-flag-0123456789']);
    // For display every environment value is hidden (its name says what is set); a vault pointer is shown.
    expect(maskServer(stdio)).toMatchObject({
      env: { GITHUB_TOKEN: '•••', MODE: '•••' },
      args: ['--api-key=•••', '--verbose'],
    });
    expect(maskServer(saved)).toMatchObject({ env: { GITHUB_TOKEN: 'vault://mcp.gh.env.GITHUB_TOKEN', MODE: '•••' } });
    // A credential flag whose value is the next argument; and a URL's query values.
    const apart = mcpServerSchema.parse({ name: 'gh', command: 'gh-mcp', args: ['--token', 'abc123', '--verbose'] });
    expect(maskServer(apart)).toMatchObject({ args: ['--token', '•••', '--verbose'] });
    const keyed = mcpServerSchema.parse({ name: 'q', url: 'https://h/mcp?key=abc123&region=eu#top' });
    expect(maskServer(keyed)).toMatchObject({ url: 'https://h/mcp?key=•••&region=•••#top' });

    const http = mcpServerSchema.parse({ name: 'remote', url: 'https://h/mcp', auth: { bearer: 'tok-0123456789' } });
    expect(await stashSecrets(http, vault)).toMatchObject({ auth: { bearer: 'vault://mcp.remote.auth.bearer' } });
    // A password in the URL is Basic auth: it leaves the address and goes into the vault like any secret.
    const inUrl = mcpServerSchema.parse({ name: 'remote', url: 'https://ana:p%C3%A4ss%2F1@h/mcp?x=1' });
    expect(inUrl).toMatchObject({
      url: 'https://h/mcp?x=1',
      auth: { header: 'Authorization', value: `Basic ${Buffer.from('ana:päss/1').toString('base64')}` },
    });
    expect(plainSecrets(inUrl)).toEqual(['auth.value (Authorization)']);
    const stashed = await stashSecrets(inUrl, vault);
    expect(stashed).toMatchObject({
      url: 'https://h/mcp?x=1',
      auth: { header: 'Authorization', value: 'vault://mcp.remote.auth.value' },
    });
    expect(JSON.stringify(stashed)).not.toContain('ana');
    expect((await resolveSecrets(stashed, vault)).server).toMatchObject({
      auth: { value: `Basic ${Buffer.from('ana:päss/1').toString('base64')}` },
    });
    const both = mcpServerSchema.safeParse({
      name: 'remote',
      url: 'https://ana:pw@h/mcp',
      auth: { bearer: 'tok-0123456789' },
    });
    expect(both.success).toBe(false);
    expect(both.error?.issues[0]).toMatchObject({ path: ['url'], message: expect.stringContaining('auth is set too') });
    const missing = mcpServerSchema.parse({
      name: 'remote',
      url: 'https://h/mcp',
      auth: { bearer: 'vault://nobody-stored-this' },
    });
    await expect(resolveSecrets(missing, vault)).rejects.toThrow(McpSecretError);
    await expect(resolveSecrets(missing, vault)).rejects.toThrow(
      /MCP server "remote": auth\.bearer points into the vault but "nobody-stored-this" could not be read/,
    );
  });

  it('an unresolvable pointer stops that server with a message naming the field; the others run', async () => {
    const m = await managerFor([
      everythingStdio(),
      everythingStdio('locked', { env: { API_TOKEN: 'vault://missing-token' } }),
    ]);
    close = m.close;
    await m.manager.reconcile();
    const list = await m.manager.list();
    expect(list.find((s) => s.name === 'everything')).toMatchObject({ state: 'running' });
    expect(list.find((s) => s.name === 'locked')).toMatchObject({
      state: 'failed',
      lastError: expect.stringContaining('env.API_TOKEN points into the vault'),
    });
  });

  it('run-time settings add, remove and switch servers over kazma.yaml; a removed one stays removed until added', async () => {
    const m = await managerFor([everythingStdio('a'), everythingStdio('b')]);
    close = m.close;
    const names = async () => (await m.settings.servers()).map((s) => `${s.name}:${s.enabled ? 'on' : 'off'}`);
    await m.settings.setEnabled('a', false, 'test');
    expect(await names()).toEqual(['a:off', 'b:on']);
    expect(await m.settings.remove('b', 'test')).toBe(true);
    expect(await m.settings.remove('b', 'test')).toBe(false);
    expect(await names()).toEqual(['a:off']);
    await m.settings.add(mcpServerSchema.parse(everythingStdio('b', { trust: 'trusted' })), 'test');
    await m.settings.add(mcpServerSchema.parse(everythingStdio('c')), 'test');
    expect(await names()).toEqual(['a:off', 'b:on', 'c:on']);
    expect((await m.settings.servers()).find((s) => s.name === 'b')!.trust).toBe('trusted');
    await m.manager.reconcile();
    expect(m.manager.running().sort()).toEqual(['b', 'c']);
    expect(m.registry.list().some((t) => t.name.startsWith('mcp__a__'))).toBe(false);
    await m.settings.remove('c', 'test');
    await m.manager.reconcile();
    expect(m.manager.running()).toEqual(['b']);
    expect(m.registry.list().some((t) => t.name.startsWith('mcp__c__'))).toBe(false);
    expect(await m.store.get('c')).toBeUndefined();
  });
});

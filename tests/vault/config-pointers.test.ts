// vault:// pointers in kazma.yaml, resolved at start by the real composition root (assembleKazma): the
// resolved value is what Kazma uses (the HTTP API accepts the operator's real token), it joins the
// masked secrets, and a pointer that cannot be resolved stops the start naming its key.
import { Writable } from 'node:stream';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assembleKazma, type RunningKazma } from '../../src/assemble.ts';
import { parseConfig } from '../../src/core/config/index.ts';
import { vaultKeyring, vaultSecrets } from '../../src/core/db/schema/vault.ts';
import { ConfigError } from '../../src/core/errors.ts';
import { createLogger } from '../../src/core/log/index.ts';
import { findVaultPointers, resolveVaultPointers, Vault } from '../../src/core/vault/index.ts';
import { freshDatabase, type FreshDatabase } from '../helpers/databases.ts';
import { testQueuePrefix, testRedis } from '../helpers/outbox.ts';

const KEY = 'pointer test passphrase';
const TOKEN = 'maya-api-token-0123456789abcdef';

let database: FreshDatabase;
let dir: string;
let running: RunningKazma | undefined;
beforeAll(async () => {
  database = await freshDatabase('pglite');
  dir = await mkdtemp(join(tmpdir(), 'kazma-vault-'));
});
afterEach(async () => {
  await running?.stop();
  running = undefined;
  await database.db.delete(vaultSecrets);
  await database.db.delete(vaultKeyring);
});
afterAll(async () => {
  await database.dispose();
  await rm(dir, { recursive: true, force: true });
});

/** kazma.yaml as an object, loaded with `env`, and a logger whose JSON lines are kept in `lines`. */
function setup(config: Record<string, unknown>, env: Record<string, string | undefined> = { KAZMA_VAULT_KEY: KEY }) {
  const raw = { data_dir: join(dir, 'data'), http: { port: 0 }, tools: { workspace: dir }, ...config };
  const loaded = parseConfig(JSON.stringify(raw), { env: { PATH: process.env.PATH, ...env }, baseDir: dir });
  let output = '';
  const destination = new Writable({
    write: (chunk, _enc, done) => {
      output += String(chunk);
      done();
    },
  });
  // As `kazma start` makes it (src/cli/common.ts): holding loaded.secrets, which the vault adds to.
  const logger = createLogger({ level: 'debug', pretty: false, destination, secrets: loaded.secrets });
  const start = async () =>
    (running = await assembleKazma({
      loaded,
      logger,
      database,
      redis: testRedis(),
      queuePrefix: testQueuePrefix('vault'),
    }));
  return { loaded, logger, start, output: () => output };
}

const startError = (start: () => Promise<unknown>) =>
  start().then(
    () => undefined,
    (error: unknown) => error as Error,
  );

describe('vault:// pointers in the configuration', () => {
  it('finds every pointer by its key path', () => {
    expect(
      findVaultPointers({ a: 'vault://x', b: [{ c: 'plain' }, { c: 'vault://y' }], d: { e: 'x vault://z' } }),
    ).toEqual([
      { path: 'a', pointer: 'vault://x' },
      { path: 'b[1].c', pointer: 'vault://y' },
    ]);
  });

  it('refuses a pointer as database.url on load: the vault lives in that database', () => {
    expect(() => setup({ database: { url: 'vault://db' } })).toThrow(/database\.url: cannot be a vault:\/\/ pointer/);
  });

  it("leaves MCP servers' pointers to the MCP manager (one bad pointer stops that server, not Kazma)", async () => {
    const { loaded } = setup({
      mcp: {
        servers: [{ name: 'issues', url: 'https://mcp.example.com/mcp', auth: { bearer: 'vault://not-stored' } }],
      },
    });
    const vault = new Vault({ db: database.db, passphrase: KEY, iterations: 1_000 });
    expect(await resolveVaultPointers(loaded, vault)).toBe(0);
    expect(JSON.stringify(loaded.config.mcp.servers)).toContain('vault://not-stored');
  });

  it('resolve at start: the operator token is the secret, masked in logs, and the HTTP API accepts it', async () => {
    await new Vault({ db: database.db, passphrase: KEY, iterations: 1_000 }).stash('maya-api', TOKEN);
    const { loaded, logger, start, output } = setup({
      access: { operators: [{ name: 'maya', console: 'maya', api_token: 'vault://maya-api' }] },
    });
    const kazma = await start();
    expect(kazma.loaded.config.access.operators[0]!.api_token).toBe(TOKEN);
    expect(loaded.secrets).toContain(TOKEN);
    const ask = (token: string) =>
      fetch(`http://127.0.0.1:${kazma.http.port}/api/approvals`, { headers: { authorization: `Bearer ${token}` } });
    expect((await ask(TOKEN)).status).toBe(200);
    expect((await ask('vault://maya-api')).status).toBe(401);
    // A module that logs the value by mistake, after the start: masked, by value, in a field and in the message.
    logger.info({ note: `token is ${TOKEN}` }, `token is ${TOKEN}`);
    expect(output()).toContain('vault:// pointers in the configuration resolved');
    expect(output()).toContain('token is •••');
    expect(output()).not.toContain(TOKEN);
  });

  it('an unknown name stops the start, naming the key and the names there are', async () => {
    await new Vault({ db: database.db, passphrase: KEY, iterations: 1_000 }).stash('other', 'other-secret-value');
    const { start } = setup({ access: { operators: [{ name: 'maya', console: 'maya', api_token: 'vault://nope' }] } });
    const error = await startError(start);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.message).toContain(
      'access.operators[0].api_token: vault://nope cannot be resolved: There is no secret named "nope" in the vault. Stored: other.',
    );
  });

  it('with the vault disabled, a pointer stops the start naming the key and saying how to enable the vault', async () => {
    const { start } = setup(
      { access: { operators: [{ name: 'maya', console: 'maya', api_token: 'vault://maya-api' }] } },
      {},
    );
    const error = await startError(start);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.message).toContain(
      'access.operators[0].api_token: vault://maya-api cannot be resolved: The secret vault is disabled: set KAZMA_VAULT_KEY',
    );
  });

  it('with a wrong key, a pointer stops the start naming the key', async () => {
    await new Vault({ db: database.db, passphrase: KEY, iterations: 1_000 }).stash('maya-api', TOKEN);
    const { start } = setup(
      { access: { operators: [{ name: 'maya', console: 'maya', api_token: 'vault://maya-api' }] } },
      { KAZMA_VAULT_KEY: 'wrong' },
    );
    const error = await startError(start);
    expect(error!.message).toContain(
      'access.operators[0].api_token: vault://maya-api cannot be resolved: KAZMA_VAULT_KEY does not open this vault',
    );
  });

  it('the configuration rules run again on resolved values (an operator token too short)', async () => {
    await new Vault({ db: database.db, passphrase: KEY, iterations: 1_000 }).stash('short', 'abc12345');
    const { start } = setup({ access: { operators: [{ name: 'maya', console: 'maya', api_token: 'vault://short' }] } });
    const error = await startError(start);
    expect(error!.message).toContain(
      'with its vault:// pointers resolved, the configuration is not valid:\n  access.operators[0].api_token: too short',
    );
  });

  it('a platform rule judges the resolved value (a Slack socket-mode app token that is a bot token)', async () => {
    await new Vault({ db: database.db, passphrase: KEY, iterations: 1_000 }).stash(
      'slack-app',
      'xoxb-not-an-app-token',
    );
    const { start } = setup({
      slack: { enabled: true, token: 'xoxb-1', mode: 'socket', app_token: 'vault://slack-app' },
    });
    const error = await startError(start);
    expect(error!.message).toContain('slack.app_token: must be an app-level token (xapp-…)');
  });

  it('a wrong key with no pointer to resolve does not stop Kazma: it is logged, and the vault tools say so', async () => {
    await new Vault({ db: database.db, passphrase: KEY, iterations: 1_000 }).stash('x', 'x-secret-value');
    const { start, output } = setup({}, { KAZMA_VAULT_KEY: 'wrong' });
    const kazma = await start();
    expect(output()).toContain('KAZMA_VAULT_KEY does not open this vault');
    const result = await kazma.core.tools.execute('vault_list', {}, { workspace: dir, env: {} });
    expect(result).toMatchObject({
      ok: false,
      error: expect.stringContaining('KAZMA_VAULT_KEY does not open this vault'),
    });
  });
});

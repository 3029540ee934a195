// The vault tools through the one path every tool call takes (ToolRegistry): list runs freely and shows
// names only; store adds but never replaces; retrieve and delete wait for a person; with no key every
// one is refused before anything runs, saying how to enable the vault.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolContext } from '../../src/core/tools/define.ts';
import { ToolRegistry } from '../../src/core/tools/registry.ts';
import { vaultTools } from '../../src/core/vault/tools.ts';
import { Vault } from '../../src/core/vault/index.ts';
import { freshDatabase, type FreshDatabase } from '../helpers/databases.ts';

const SECRET = 'sk-proj-0123456789abcdef';
const ctx: ToolContext = { workspace: '/nonexistent', env: {}, secrets: [] };

let database: FreshDatabase;
let registry: ToolRegistry;
let vault: Vault;
beforeAll(async () => {
  database = await freshDatabase('pglite');
  vault = new Vault({ db: database.db, passphrase: 'tools test passphrase', iterations: 1_000 });
  registry = new ToolRegistry();
  for (const tool of vaultTools(vault)) registry.register(tool);
  await vault.stash('openai', SECRET);
});
afterAll(async () => {
  await database.dispose();
});

describe('vault tools', () => {
  it('vault_list is safe and answers with names only, never values', async () => {
    expect((await registry.classify('vault_list', {}, ctx)).kind).toBe('run');
    const result = await registry.execute('vault_list', {}, ctx);
    expect(result).toEqual({ ok: true, output: 'Secrets in the vault (1): openai' });
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });

  it('vault_retrieve and vault_delete need approval (danger)', async () => {
    for (const name of ['vault_retrieve', 'vault_delete']) {
      const decision = await registry.classify(name, { name: 'openai' }, ctx);
      expect(decision).toMatchObject({ kind: 'ask', reason: `"${name}" is a danger tool and needs approval` });
    }
  });

  it('vault_retrieve and vault_delete of an unknown name are refused before any card, naming what there is', async () => {
    for (const name of ['vault_retrieve', 'vault_delete']) {
      expect(await registry.classify(name, { name: 'nope' }, ctx)).toEqual({
        kind: 'refuse',
        reason: 'there is no secret named "nope"; stored: openai',
      });
    }
  });

  it('vault_retrieve (once approved) returns the value; vault_delete deletes', async () => {
    await vault.stash('temp', 'temporary-value');
    expect(await registry.execute('vault_retrieve', { name: 'temp' }, ctx)).toEqual({
      ok: true,
      output: 'temporary-value',
    });
    expect(await registry.execute('vault_delete', { name: 'temp' }, ctx)).toEqual({
      ok: true,
      output: 'Deleted the secret "temp".',
    });
    expect(await vault.list()).toEqual(['openai']);
  });

  it('vault_store adds a new name without a card, and refuses to replace an existing one', async () => {
    expect((await registry.classify('vault_store', { name: 'github', value: 'ghp_new_value' }, ctx)).kind).toBe('run');
    expect(await registry.execute('vault_store', { name: 'github', value: 'ghp_new_value' }, ctx)).toEqual({
      ok: true,
      output: 'Stored the secret as vault://github.',
    });
    expect(await vault.get('github')).toBe('ghp_new_value');
    const again = await registry.classify('vault_store', { name: 'openai', value: 'something else' }, ctx);
    expect(again).toEqual({
      kind: 'refuse',
      reason:
        'a secret named "openai" already exists and is not replaced; choose another name, or delete it first with vault_delete (needs approval)',
    });
    expect(await registry.execute('vault_store', { name: 'openai', value: 'something else' }, ctx)).toMatchObject({
      ok: false,
      refused: true,
    });
    expect(await vault.get('openai')).toBe(SECRET);
  });

  it('vault_store checks the name before anything runs', async () => {
    expect(await registry.classify('vault_store', { name: '../x', value: 'v' }, ctx)).toMatchObject({
      kind: 'invalid',
    });
  });

  it('with no KAZMA_VAULT_KEY every tool is refused before it runs, saying how to enable the vault', async () => {
    const off = new ToolRegistry();
    for (const tool of vaultTools(new Vault({ db: database.db, passphrase: undefined }))) off.register(tool);
    const calls: Array<[string, Record<string, unknown>]> = [
      ['vault_list', {}],
      ['vault_store', { name: 'a', value: 'b' }],
      ['vault_retrieve', { name: 'openai' }],
      ['vault_delete', { name: 'openai' }],
    ];
    for (const [name, args] of calls) {
      const decision = await off.classify(name, args, ctx);
      expect(decision).toEqual({
        kind: 'refuse',
        reason: expect.stringContaining('this tool needs the secret vault, which is disabled: set KAZMA_VAULT_KEY'),
      });
    }
  });
});

// `kazma mcp add|list|test|remove` and `kazma tools list|toggle` as a person runs them: the real CLI in
// a child process, on a temp data_dir. A server that does not start is not saved (its error and stderr
// shown); a typed-in secret goes into the vault and never comes out in a listing.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAddArgs, rewriteInstall } from '../../src/cli/commands/mcp-args.ts';
import { runKazma, writeConfig } from '../helpers/kazma-process.ts';
import { EVERYTHING } from './servers.ts';
import { seedPgliteDataDir } from '../helpers/databases.ts';

const KEY = 'mcp cli test passphrase';
const SECRET = 'ghp_typed_in_secret_0123456789';
const { dir, path } = writeConfig(`data_dir: ./data
mcp:
  servers:
    - { name: yamlbroken, command: kazma-no-such-command-xyz }
`);
await seedPgliteDataDir(join(dir, 'data'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `--config` goes right after the server's name: what follows the command of `mcp add` is the server's own argv. */
async function kazma(...args: string[]) {
  const out = await runKazma([...args.slice(0, 3), '--config', path, ...args.slice(3)], {
    cwd: dir,
    env: { KAZMA_VAULT_KEY: KEY, KAZMA_CONFIG: undefined },
  });
  expect(out.stdout + out.stderr).not.toContain(SECRET);
  return out;
}

describe('kazma mcp', () => {
  it('add refuses a server that does not start and shows its error and stderr; nothing is saved', async () => {
    const missing = await kazma('mcp', 'add', 'nope', 'kazma-no-such-command-xyz');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/✗ MCP server "nope" did not start: .*ENOENT/);
    expect(missing.stderr).toContain('not saved: "nope" did not start');
    const dying = await kazma(
      'mcp',
      'add',
      'dying',
      process.execPath,
      '-e',
      'console.error("cannot open the socket"); process.exit(2)',
    );
    expect(dying.code).toBe(1);
    expect(dying.stderr).toContain("the server's stderr:\n    cannot open the socket");
    const list = await kazma('mcp', 'list');
    expect(list.stdout).not.toMatch(/nope|dying/);
    expect(list.stdout).toContain('yamlbroken — MCP server, on');
  }, 300_000);

  it('add saves a working server with its secret in the vault; list, tools toggle and remove', async () => {
    const added = await kazma(
      'mcp',
      'add',
      'everything',
      '--env',
      `GITHUB_TOKEN=${SECRET}`,
      process.execPath,
      EVERYTHING,
      'stdio',
    );
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(added.stdout).toContain('moved into the vault: env.GITHUB_TOKEN');
    expect(added.stdout).toMatch(/✓ saved MCP server "everything" with \d+ tools: echo, /);
    const list = await kazma('mcp', 'list');
    expect(list.stdout).toMatch(/everything — MCP server, on — untrusted \(asks first\)/);
    expect((await kazma('mcp', 'test', 'everything')).stdout).toMatch(/✓ everything: \d+ tools/);

    expect((await kazma('tools', 'toggle', 'everything')).stdout).toContain('MCP server everything is off');
    expect((await kazma('tools', 'toggle', 'write_file')).stdout).toContain('write_file is off');
    // Every built-in a running Kazma offers, as /config tools list shows them: the web, send_message and
    // Agent Skills tools too, and each can be switched from here.
    expect((await kazma('tools', 'toggle', 'web_fetch')).stdout).toContain('web_fetch is off');
    const tools = await kazma('tools', 'list');
    expect(tools.stdout).toContain('⚪ write_file — off');
    expect(tools.stdout).toContain('⚪ web_fetch — off');
    for (const name of [
      'send_message',
      'list_agent_skills',
      'load_agent_skill',
      'install_agent_skill',
      'start_task',
      'vault_store',
    ])
      expect(tools.stdout).toMatch(new RegExp(`${name} — on`));
    expect(tools.stdout).toContain('⚪ everything — MCP server, off');
    const unknown = await kazma('tools', 'toggle', 'everythin');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Did you mean everything?');

    expect((await kazma('mcp', 'remove', 'everything')).code).toBe(0);
    expect((await kazma('mcp', 'list')).stdout).not.toContain('everything');
  }, 400_000); // nine runs of the real CLI, each opening PGlite and deriving the vault key

  it('reads its arguments and runs install commands instead', () => {
    expect(rewriteInstall(['npm', 'install', '-g', '@modelcontextprotocol/server-everything'])).toEqual([
      'npx',
      '-y',
      '@modelcontextprotocol/server-everything',
    ]);
    expect(rewriteInstall(['npm', 'i', '--global', 'x'])).toEqual(['npx', '-y', 'x']);
    expect(rewriteInstall(['yarn', 'global', 'add', 'x'])).toEqual(['npx', '-y', 'x']);
    expect(rewriteInstall(['npx', '-y', 'x'])).toBeUndefined();
    const parsed = parseAddArgs(['gh', '--header', 'X-Key: abc', '--url', 'https://h/mcp', '--trust', 'trusted']);
    expect(parsed.server).toEqual({
      name: 'gh',
      auth: { header: 'X-Key', value: 'abc' },
      url: 'https://h/mcp',
      trust: 'trusted',
    });
    const npm = parseAddArgs(['ev', 'npm', 'install', '-g', 'pkg']);
    expect(npm.server).toMatchObject({ command: 'npx', args: ['-y', 'pkg'] });
    expect(npm.notices[0]).toContain('running it as "npx -y pkg"');
    expect(parseAddArgs(['ev', 'npx', '-y', 'pkg', '--api-key=k']).server).toMatchObject({
      command: 'npx',
      args: ['-y', 'pkg', '--api-key=k'],
    });
  });
});

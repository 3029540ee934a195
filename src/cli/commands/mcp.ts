import { mcpServerSchema } from '../../core/config/index.ts';
import { listServers, maskServer, type Tried, tryServer, vetServer } from '../../core/mcp/index.ts';
import { maskText } from '../../core/secrets/index.ts';
import { serverLine } from '../../core/settings/index.ts';
import { EXIT, explain, loadOrExplain, type Subcommand } from '../common.ts';
import { parseAddArgs } from './mcp-args.ts';
import { CLI_ACTOR, openAdmin, type Admin } from './mcp-admin.ts';

/** Reads `--config FILE` anywhere before the words that follow it, and returns the rest. */
function configOption(args: readonly string[]): { config: string | undefined; rest: string[] } {
  const i = args.findIndex((a) => a === '--config' || a === '-c');
  return i < 0
    ? { config: undefined, rest: [...args] }
    : { config: args[i + 1], rest: [...args.slice(0, i), ...args.slice(i + 2)] };
}

async function withAdmin(
  config: string | undefined,
  body: (
    admin: Admin,
    env: Readonly<Record<string, string | undefined>>,
    secrets: readonly string[],
  ) => Promise<number>,
): Promise<number> {
  try {
    const loaded = loadOrExplain(config);
    const admin = await openAdmin(loaded);
    try {
      return await body(admin, loaded.env, loaded.secrets);
    } finally {
      await admin.close();
    }
  } catch (error) {
    return explain(error);
  }
}

/** Prints why a server did not start (masked) and its stderr; returns its tools when it did. */
function told(tried: Tried): string[] | undefined {
  if (tried.ok) return tried.tools;
  console.error(`✗ ${tried.message}`);
  if (tried.stderr) console.error(`  the server's stderr:\n${tried.stderr.replace(/^/gm, '    ')}`);
  return undefined;
}

export const mcpAdd: Subcommand = {
  summary: 'add an MCP server after checking that it starts and has tools',
  usage: `Usage: kazma mcp add <name> [options] [--] <command> [args...]
       kazma mcp add <name> --url URL [--transport sse|http] [--bearer TOKEN | --header "Name: value"]

Options: --env NAME=value (repeatable), --cwd DIR, --trust trusted|untrusted, --sampling, --elicitation,
--config FILE. Connects to the server and lists its tools first: a server that does not start or has no
tools is not saved. Secrets (credential-named --env values, tokens, headers, --api-key= flags) are moved
into the vault. "npm install -g X" is run as "npx -y X". Saved in the database, never in kazma.yaml.`,
  async run(args) {
    let parsed;
    try {
      parsed = parseAddArgs(args);
    } catch (error) {
      console.error(`kazma mcp add: ${(error as Error).message}\n${mcpAdd.usage}`);
      return EXIT.usage;
    }
    for (const notice of parsed.notices) console.log(`note: ${notice}`);
    const checked = mcpServerSchema.safeParse(parsed.server);
    if (!checked.success) {
      console.error(
        `kazma mcp add: ${checked.error.issues.map((i) => `${i.path.join('.') || 'server'}: ${i.message}`).join('; ')}`,
      );
      return EXIT.usage;
    }
    return withAdmin(parsed.config, async ({ servers, vault }, env, secrets) => {
      const vetted = await vetServer(checked.data, { vault, env, secrets });
      if (!vetted.ok) {
        if (vetted.reason === 'trust') return (console.error(`kazma mcp add: ${vetted.message}`), EXIT.usage);
        if (vetted.tried) told(vetted.tried);
        return (console.error(vetted.message), EXIT.failure);
      }
      const { server, tools, moved } = vetted;
      if (moved.length > 0) console.log(`moved into the vault: ${moved.join(', ')}`);
      await servers.add(server, CLI_ACTOR);
      console.log(`✓ saved MCP server "${server.name}" with ${tools.length} tools: ${tools.join(', ')}`);
      console.log('A running Kazma starts it within a few seconds.');
      return EXIT.ok;
    });
  },
};

export const mcpRemove: Subcommand = {
  summary: 'remove an MCP server (stays removed, even if kazma.yaml names it, until added again)',
  usage: 'Usage: kazma mcp remove <name> [--config FILE]',
  async run(args) {
    const {
      config,
      rest: [name],
    } = configOption(args);
    if (!name) return (console.error(mcpRemove.usage), EXIT.usage);
    return withAdmin(config, async ({ servers }) => {
      if (!(await servers.remove(name, CLI_ACTOR)))
        return (console.error(`kazma mcp remove: there is no MCP server "${name}"`), EXIT.failure);
      console.log(`removed MCP server "${name}"; a running Kazma stops it within a few seconds`);
      return EXIT.ok;
    });
  },
};

export const mcpTest: Subcommand = {
  summary: 'connect to a configured MCP server and list its tools',
  usage: 'Usage: kazma mcp test <name> [--config FILE]',
  async run(args) {
    const {
      config,
      rest: [name],
    } = configOption(args);
    if (!name) return (console.error(mcpTest.usage), EXIT.usage);
    return withAdmin(config, async ({ servers, vault }, env, secrets) => {
      const server = (await servers.servers()).find((s) => s.name === name);
      if (!server) return (console.error(`kazma mcp test: there is no MCP server "${name}"`), EXIT.failure);
      const tools = await tryServer(server, { vault, env, secrets }).then(told, (error: unknown) => {
        console.error(`✗ ${(error as Error).message}`);
      });
      if (!tools) return EXIT.failure;
      console.log(`✓ ${name}: ${tools.length} tools: ${tools.join(', ')}`);
      return EXIT.ok;
    });
  },
};

export const mcpList: Subcommand = {
  summary: 'list MCP servers with their state and last error (secrets masked)',
  usage: 'Usage: kazma mcp list [--config FILE]',
  async run(args) {
    const { config } = configOption(args);
    return withAdmin(config, async ({ servers, store }, _env, secrets) => {
      const configured = await servers.servers();
      if (configured.length === 0)
        return (
          console.log('No MCP servers. Add one with kazma mcp add, or under mcp.servers in kazma.yaml.'), EXIT.ok
        );
      const byName = new Map(configured.map((s) => [s.name, maskServer(s, secrets)]));
      for (const view of listServers(configured, await store.all())) {
        const s = byName.get(view.name)!;
        console.log(serverLine({ ...view, ...(view.lastError && { lastError: maskText(view.lastError, secrets) }) }));
        console.log(`    ${s.transport === 'stdio' ? [s.command, ...s.args].join(' ') : `${s.transport} ${s.url}`}`);
      }
      return EXIT.ok;
    });
  },
};

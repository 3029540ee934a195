import { z } from 'zod';
import type { RuntimeSettings } from '../settings/index.ts';
import { mcpServerSchema, type McpServerConfig } from '../config/index.ts';
import { McpStdioRefusedError } from './errors.ts';

/** Settings keys: servers added or changed at run time, names removed, and on/off switches. */
export const MCP_SERVERS = 'mcp.servers';
export const MCP_REMOVED = 'mcp.removed_servers';
export const MCP_SWITCHES = 'mcp.server_switches';

const added = z.array(mcpServerSchema);
const names = z.array(z.string());
const switches = z.record(z.string(), z.boolean());

/**
 * MCP servers as kazma.yaml starts them and the settings table changes them. kazma.yaml is never
 * rewritten: a server added with `kazma mcp add` lives in `mcp.servers` (by name, replacing a yaml
 * server of that name), a removed one is named in `mcp.removed_servers` until it is added again, and
 * `/config tools toggle <server>` writes `mcp.server_switches`. A running Kazma holds this class: it
 * reads the servers and switches them on or off, and cannot add or change one ({@link McpServerEditor}),
 * besides {@link McpRemoteServers}, which adds remote servers only.
 */
export class McpServerSettings {
  constructor(protected readonly o: { settings: RuntimeSettings; yaml: readonly McpServerConfig[] }) {}

  /** Every server that exists now (yaml, plus added, minus removed), each with its effective `enabled`. */
  async servers(): Promise<McpServerConfig[]> {
    const [extra, removed, switched] = await Promise.all([this.added(), this.removed(), this.switches()]);
    const byName = new Map(this.o.yaml.map((s) => [s.name, s]));
    for (const server of extra) byName.set(server.name, server);
    return [...byName.values()]
      .filter((s) => !removed.includes(s.name))
      .map((s) => ({ ...s, enabled: switched[s.name] ?? s.enabled }));
  }

  /** Switches a server on or off (persisted; kazma.yaml's `enabled` is only the starting point). */
  async setEnabled(name: string, on: boolean, by: string): Promise<void> {
    await this.switch(name, on, by);
  }

  protected async switch(name: string, on: boolean | undefined, by: string): Promise<void> {
    const current = await this.switches();
    if (current[name] === on) return;
    const { [name]: _old, ...rest } = current;
    await this.o.settings.set(MCP_SWITCHES, on === undefined ? rest : { ...rest, [name]: on }, by);
  }

  /** Saves a server and takes its name off the removed list; its switch goes back to its `enabled`. */
  protected async save(server: McpServerConfig, by: string): Promise<void> {
    const extra = (await this.added()).filter((s) => s.name !== server.name);
    await this.o.settings.set(MCP_SERVERS, [...extra, server], by);
    const removed = await this.removed();
    if (removed.includes(server.name))
      await this.o.settings.set(
        MCP_REMOVED,
        removed.filter((n) => n !== server.name),
        by,
      );
    await this.switch(server.name, undefined, by);
  }

  /** Takes a server out: off `mcp.servers`, onto `mcp.removed_servers` until added again. False when unknown. */
  protected async drop(name: string, by: string): Promise<boolean> {
    if (!(await this.servers()).some((s) => s.name === name)) return false;
    await this.o.settings.set(
      MCP_SERVERS,
      (await this.added()).filter((s) => s.name !== name),
      by,
    );
    await this.o.settings.set(MCP_REMOVED, [...new Set([...(await this.removed()), name])].sort(), by);
    return true;
  }

  protected async added(): Promise<McpServerConfig[]> {
    return (await this.o.settings.get(MCP_SERVERS, added))?.value ?? [];
  }

  protected async removed(): Promise<string[]> {
    return (await this.o.settings.get(MCP_REMOVED, names))?.value ?? [];
  }

  protected async switches(): Promise<Record<string, boolean>> {
    return (await this.o.settings.get(MCP_SWITCHES, switches))?.value ?? {};
  }
}

/**
 * What adds, changes and removes MCP servers at run time — and so decides which commands a stdio server
 * runs as Kazma's user. Only `kazma mcp add` / `kazma mcp remove` (src/cli/, an operator's command line)
 * build one; no tool and no chat command can (tests/mcp/origin.test.ts checks it), which is why stdio
 * servers may run outside the sandbox (docs/spawn-sites.yaml).
 */
export class McpServerEditor extends McpServerSettings {
  /** Saves a server (validated and with secrets already in the vault) and takes its name off the removed list. */
  add(server: McpServerConfig, by: string): Promise<void> {
    return this.save(server, by);
  }

  /** Removes a server; it stays removed (even when kazma.yaml names it) until added again. False when unknown. */
  remove(name: string, by: string): Promise<boolean> {
    return this.drop(name, by);
  }
}

/** A server Kazma reaches over the network: it runs no command on this machine. */
export type RemoteMcpServer = Exclude<McpServerConfig, { transport: 'stdio' }>;

/**
 * What the operators' web page adds and removes MCP servers with: remote (Streamable HTTP or SSE) servers
 * only, which run nothing here. It can neither add a stdio server nor put a remote one in the place of one (a stdio
 * server's command is an operator's command-line decision; see {@link McpServerEditor}).
 */
export class McpRemoteServers extends McpServerSettings {
  /** Saves `server` (checked, secrets in the vault); {@link McpStdioRefusedError} for a stdio server or its name. */
  async addRemote(server: RemoteMcpServer, by: string): Promise<void> {
    if ((server as McpServerConfig).transport === 'stdio') throw new McpStdioRefusedError(server.name);
    if ((await this.servers()).some((s) => s.name === server.name && s.transport === 'stdio'))
      throw new McpStdioRefusedError(server.name);
    await this.save(server, by);
  }

  /**
   * Removes a remote server as `kazma mcp remove` does (it stays removed until added again); false when
   * unknown. A stdio server is removed only from the command line, as it is added ({@link McpStdioRefusedError}).
   */
  async removeRemote(name: string, by: string): Promise<boolean> {
    const server = (await this.servers()).find((s) => s.name === name);
    if (!server) return false;
    if (server.transport === 'stdio') throw new McpStdioRefusedError(name, 'remove');
    return this.drop(name, by);
  }
}

import type { Clock } from '../clock.ts';
import type { Logger } from '../log/index.ts';
import type { ToolRegistry } from '../tools/index.ts';
import { maskText } from '../secrets/index.ts';
import type { VaultPort } from '../vault/index.ts';
import type { McpConnection, McpServerRequestHandler } from './connection.ts';
import { McpStartError, McpUnknownServerError } from './errors.ts';
import type { McpServerConfig } from '../config/index.ts';
import { maskServer, resolveSecrets } from './secrets.ts';
import type { McpServerSettings } from './server-settings.ts';
import type { McpStateStore } from './state-store.ts';
import { resultText, serverTools } from './tools.ts';
import { listServers, type McpServerView } from './server-view.ts';

/** What {@link McpManager} needs. */
export interface McpManagerOptions {
  settings: McpServerSettings;
  store: McpStateStore;
  registry: ToolRegistry;
  /** The parent environment; stdio servers get an allowlisted part of it. */
  env: Readonly<Record<string, string | undefined>>;
  /** `mcp.safe_tools`. */
  safeTools: readonly string[];
  /** Kazma's configured secrets, masked out of every error kept or shown. */
  secrets: readonly string[];
  vault?: VaultPort;
  clock: Clock;
  logger?: Logger;
  connectTimeoutMs?: number;
  onServerRequest?: McpServerRequestHandler;
  /** What a failed `follow` pass says (a database outage is said once by the caller); default a warning. */
  onError?: (error: unknown) => void;
}

interface Live {
  config: McpServerConfig;
  connection: McpConnection;
  tools: string[];
}

/**
 * Starts, stops and retries the configured MCP servers and keeps their tools in the registry. One
 * `reconcile()` makes the running set match the settings: it starts what is on and due (never started,
 * or its retry time has come), stops what is off, removed or changed. The sweep calls it, so a server
 * that failed is tried again with growing delays.
 */
export class McpManager {
  readonly #live = new Map<string, Live>();
  #reconciling: Promise<void> | undefined;
  /** The pass after the one under way, shared by every caller that arrived during it. */
  #again: Promise<void> | undefined;
  #closed = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly o: McpManagerOptions) {}

  /**
   * Starts, stops and retries servers until the running set matches the settings; one pass at a time.
   * Resolves after a pass that began after this call: one under way may have read the settings before the
   * caller's change (a switch), so a caller arriving during it waits for the next (one, shared).
   */
  reconcile(): Promise<void> {
    if (!this.#reconciling) {
      this.#reconciling = this.#reconcile().finally(() => {
        this.#reconciling = undefined;
      });
      return this.#reconciling;
    }
    this.#again ??= this.#reconciling
      .catch(() => undefined)
      .then(() => {
        this.#again = undefined;
        return this.#closed ? undefined : this.reconcile();
      });
    return this.#again;
  }

  async #reconcile(): Promise<void> {
    const servers = await this.o.settings.servers();
    const wanted = new Map(servers.map((s) => [s.name, s]));
    for (const [name, live] of this.#live) {
      const next = wanted.get(name);
      if (!next?.enabled || JSON.stringify(next) !== JSON.stringify(live.config))
        await this.#stop(name, next && !next.enabled ? 'disabled' : 'stopped');
      if (!next) await this.o.store.forget(name);
    }
    const now = this.o.clock.now();
    await Promise.all(
      servers.map(async (server) => {
        if (this.#live.has(server.name)) return;
        const row = await this.o.store.get(server.name);
        if (!server.enabled) {
          if (row?.state !== 'disabled') await this.o.store.stopped(server.name, 'disabled');
          return;
        }
        if (row?.state === 'failed' && row.nextRetryAt && row.nextRetryAt > now) return;
        await this.#start(server);
      }),
    );
  }

  async #start(server: McpServerConfig): Promise<void> {
    let secrets: readonly string[] = this.o.secrets;
    try {
      const resolved = await resolveSecrets(server, this.o.vault);
      secrets = [...secrets, ...resolved.secrets];
      // The MCP SDK (~90 ms and ~4 MB to load) comes with the first server: an install with none never loads it.
      const { connectServer } = await import('./connection.ts');
      const connection = await connectServer(resolved.server, {
        env: this.o.env,
        timeoutMs: this.o.connectTimeoutMs ?? 30_000,
        ...(this.o.onServerRequest && { onServerRequest: this.o.onServerRequest }),
      });
      // A name another server's tool holds is never taken over (its safe_tools entry and approvals are that
      // tool's); server names cannot make one (schema.ts), so this only guards the cut-and-hashed long names.
      const held = new Set([...this.#live].filter(([name]) => name !== server.name).flatMap(([, live]) => live.tools));
      const tools = serverTools(server, connection.tools, this.o.safeTools, (s, t, a, signal) =>
        this.#call(s, t, a, signal),
      ).filter((tool) => {
        if (held.has(tool.name))
          this.o.logger?.warn(
            { server: server.name, tool: tool.name },
            "MCP tool not offered: another server's tool has its name",
          );
        return !held.has(tool.name);
      });
      for (const tool of tools) {
        this.o.registry.unregister(tool.name);
        this.o.registry.register(tool);
      }
      this.#live.set(server.name, { config: server, connection, tools: tools.map((t) => t.name) });
      connection.client.onclose = () => void this.#lost(server.name, connection);
      await this.o.store.running(server.name, tools.length, this.o.clock.now());
      this.o.logger?.info({ server: server.name, tools: tools.length }, 'MCP server running');
    } catch (error) {
      const notFound = error instanceof McpStartError && error.notFound;
      const stderr =
        error instanceof McpStartError && error.stderr
          ? `\nstderr: ${error.stderr.split('\n').slice(-5).join('\n')}`
          : '';
      const message = maskText(`${error instanceof Error ? error.message : String(error)}${stderr}`, secrets);
      const next = await this.o.store.failed(server.name, message, notFound, this.o.clock.now());
      this.o.logger?.warn(
        { server: server.name, err: message, retryAt: next.toISOString() },
        'MCP server did not start; the sweep tries again',
      );
    }
  }

  /** The server's process exited or its connection dropped: its tools go, and the sweep starts it again. */
  async #lost(name: string, connection: McpConnection): Promise<void> {
    const live = this.#live.get(name);
    if (!live || live.connection !== connection) return;
    this.#drop(name);
    const detail = connection.stderr.text
      ? `; stderr: ${connection.stderr.text.split('\n').slice(-3).join(' | ')}`
      : '';
    await this.o.store
      .failed(name, maskText(`the connection closed${detail}`, this.o.secrets), false, this.o.clock.now())
      .catch(() => undefined);
  }

  #drop(name: string): Live | undefined {
    const live = this.#live.get(name);
    if (!live) return undefined;
    this.#live.delete(name);
    for (const tool of live.tools) this.o.registry.unregister(tool);
    return live;
  }

  async #stop(name: string, state: 'stopped' | 'disabled'): Promise<void> {
    const live = this.#drop(name);
    await live?.connection.close().catch(() => undefined);
    await this.o.store.stopped(name, state);
  }

  /** Switches a server on (started at once) or off (stopped, its tools gone); saved across restarts. */
  async setEnabled(name: string, on: boolean, by: string): Promise<void> {
    const server = (await this.o.settings.servers()).find((s) => s.name === name);
    if (!server)
      throw new McpUnknownServerError(
        name,
        (await this.o.settings.servers()).map((s) => s.name),
      );
    await this.o.settings.setEnabled(name, on, by);
    // A switched-on server starts now, not at its retry time.
    if (on) await this.o.store.stopped(name, 'stopped');
    await this.reconcile();
  }

  /** Starts a failed or stopped server now instead of at its next retry time (an incident's Retry). */
  async retryNow(name: string): Promise<void> {
    await this.o.store.dueNow(name, this.o.clock.now());
    await this.reconcile();
  }

  /** Every server with its switch and state, for `/config tools list` and `kazma mcp list`. */
  async list(): Promise<McpServerView[]> {
    return listServers(await this.o.settings.servers(), await this.o.store.all());
  }

  /** Every server's settings with secrets masked (pointers shown), for `/config show`. */
  async masked(): Promise<McpServerConfig[]> {
    return (await this.o.settings.servers()).map((s) => maskServer(s, this.o.secrets));
  }

  /** The live connection of a server, for the resource and prompt tools. */
  connection(name: string): McpConnection {
    const live = this.#live.get(name);
    if (!live)
      throw new Error(`MCP server "${name}" is not running (running: ${[...this.#live.keys()].join(', ') || 'none'})`);
    return live.connection;
  }

  /** Names of the running servers. */
  running(): string[] {
    return [...this.#live.keys()];
  }

  async #call(server: string, tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<string> {
    const result = await this.connection(server).client.callTool(
      { name: tool, arguments: args },
      undefined,
      signal ? { signal } : {},
    );
    return resultText(server, result);
  }

  /** Picks up switches and servers another process (or `kazma mcp`/`kazma tools`) saved. */
  follow(everyMs: number): void {
    const failed =
      this.o.onError ?? ((error: unknown) => this.o.logger?.warn({ err: error }, 'could not reconcile MCP servers'));
    this.#timer = setInterval(() => void this.reconcile().catch(failed), everyMs);
    this.#timer.unref();
  }

  /** Stops every server (at shutdown); their rows say `stopped`. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#closed = true;
    await this.#reconciling?.catch(() => undefined);
    await this.#again?.catch(() => undefined);
    await Promise.all([...this.#live.keys()].map((name) => this.#stop(name, 'stopped').catch(() => undefined)));
  }
}

// The checks an MCP server passes before it is saved at run time, shared by `kazma mcp add` and the web
// page's "add an MCP server" so the two cannot drift: allowed to be trusted here, starts (connects and
// lists its tools, as `kazma mcp test` does), offers at least one tool, and has its plain-text secrets
// moved into the vault (refused when there is no vault to move them to).
import { type McpServerConfig, trustIssues } from '../config/index.ts';
import { maskText } from '../secrets/index.ts';
import type { VaultPort } from '../vault/index.ts';
import { McpStartError } from './errors.ts';
import { plainSecrets, resolveSecrets, stashSecrets } from './secrets.ts';

/** What a check needs: the vault, the process's environment and the configured secrets (to mask errors). */
export interface VetOptions {
  vault: VaultPort;
  env: Readonly<Record<string, string | undefined>>;
  secrets: readonly string[];
}

/** A server that started and listed its tools, or why not (masked), with its stderr when it said any. */
export type Tried = { ok: true; tools: string[] } | { ok: false; message: string; stderr?: string };

/** Connects, lists the tools and closes. */
export async function tryServer(server: McpServerConfig, o: VetOptions): Promise<Tried> {
  const resolved = await resolveSecrets(server, o.vault);
  const mask = (text: string) => maskText(text, [...o.secrets, ...resolved.secrets]);
  try {
    // Loaded when a server is tried, as the manager loads it: the MCP SDK is not read at start.
    const { connectServer } = await import('./connection.ts');
    const connection = await connectServer(resolved.server, { env: o.env });
    await connection.close();
    return { ok: true, tools: connection.tools.map((t) => t.name) };
  } catch (error) {
    const message = mask(error instanceof Error ? error.message : String(error));
    const stderr = error instanceof McpStartError && error.stderr ? mask(error.stderr) : undefined;
    return { ok: false, message, ...(stderr && { stderr }) };
  }
}

/**
 * The server as it may be saved (secrets as vault pointers) with its tools and the fields moved into the
 * vault; or why it may not: `trust` (trusted in production), `start` (did not start: `tried` says why),
 * `no_tools`, `vault` (plain secrets and no vault).
 */
export type Vetted =
  | { ok: true; server: McpServerConfig; tools: string[]; moved: string[] }
  | { ok: false; reason: 'trust' | 'start' | 'no_tools' | 'vault'; message: string; tried?: Tried };

export async function vetServer(server: McpServerConfig, o: VetOptions): Promise<Vetted> {
  const trust = trustIssues([server], o.env, 'server');
  if (trust.length) return { ok: false, reason: 'trust', message: trust.join('; ') };
  const tried = await tryServer(server, o);
  if (!tried.ok) return { ok: false, reason: 'start', message: `not saved: "${server.name}" did not start`, tried };
  if (tried.tools.length === 0)
    return { ok: false, reason: 'no_tools', message: `not saved: "${server.name}" started but offers no tools` };
  const moved = plainSecrets(server);
  if (moved.length === 0) return { ok: true, server, tools: tried.tools, moved };
  if (!o.vault.enabled)
    return {
      ok: false,
      reason: 'vault',
      message:
        `not saved: ${moved.join(', ')} look like secrets and the vault is disabled; set KAZMA_VAULT_KEY, or ` +
        `store them with "kazma vault set" and pass vault://name`,
    };
  return { ok: true, server: await stashSecrets(server, o.vault), tools: tried.tools, moved };
}

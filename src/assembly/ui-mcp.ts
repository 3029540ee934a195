// "Add an MCP server" on the web page: the checks `kazma mcp add` runs (vetServer: trusted-in-production,
// starts and lists its tools, has tools, secrets into the vault), then saved where the CLI saves servers
// (the settings table), so the running Kazma starts it within seconds; and Remove, as `kazma mcp remove`.
// Remote servers only: a stdio server runs a command as Kazma's user, and that stays a command-line
// decision (McpRemoteServers).
import type { ActionResult, ServerForm } from '../adapters/http/index.ts';
import { mcpServerSchema } from '../core/config/index.ts';
import { maskServer, McpRemoteServers, McpStdioRefusedError, vetServer } from '../core/mcp/index.ts';
import type { RuntimeSettings } from '../core/settings/index.ts';
import type { Actor } from '../core/surface/index.ts';
import type { VaultPort } from '../core/vault/index.ts';
import type { LoadedConfig } from '../core/config/index.ts';

/** Checks and saves a remote MCP server for `actor`; the answer says what happened, masked. */
export function remoteServerAdder(deps: { loaded: LoadedConfig; settings: RuntimeSettings; vault: VaultPort }) {
  const { loaded, settings, vault } = deps;
  const servers = new McpRemoteServers({ settings, yaml: loaded.config.mcp.servers });
  return async (form: ServerForm, actor: Actor): Promise<ActionResult> => {
    const name = form.name.trim();
    if (form.command.trim() || form.transport === 'stdio')
      return { ok: false, message: new McpStdioRefusedError(name).message };
    const colon = form.header.indexOf(':');
    if (form.header.trim() && colon < 1) return { ok: false, message: 'The header is "Name: value".' };
    const auth = form.bearer.trim()
      ? { bearer: form.bearer.trim() }
      : form.header.trim()
        ? { header: form.header.slice(0, colon).trim(), value: form.header.slice(colon + 1).trim() }
        : undefined;
    const checked = mcpServerSchema.safeParse({
      name,
      url: form.url.trim(),
      transport: form.transport === 'sse' ? 'sse' : 'streamable_http',
      trust: form.trust === 'trusted' ? 'trusted' : 'untrusted',
      ...(auth && { auth }),
    });
    if (!checked.success)
      return {
        ok: false,
        message: checked.error.issues.map((i) => `${i.path.join('.') || 'server'}: ${i.message}`).join('; '),
      };
    if (checked.data.transport === 'stdio') return { ok: false, message: new McpStdioRefusedError(name).message };
    const vetted = await vetServer(checked.data, { vault, env: loaded.env, secrets: loaded.secrets });
    if (!vetted.ok) {
      const why = vetted.tried && !vetted.tried.ok ? `: ${vetted.tried.message}` : '';
      return { ok: false, message: `${vetted.message}${why}` };
    }
    const { server, tools, moved } = vetted;
    if (server.transport === 'stdio') return { ok: false, message: new McpStdioRefusedError(name).message };
    const by = actor.displayName ?? actor.id;
    try {
      await servers.addRemote(server, by);
    } catch (error) {
      if (error instanceof McpStdioRefusedError) return { ok: false, message: error.message };
      throw error;
    }
    await settings.audit({
      actor: { platform: actor.platform, id: actor.id, operator: actor.id },
      chat: 'web',
      command: `mcp add ${name}`,
      outcome: 'changed',
      detail: `${server.transport} ${(maskServer(server, loaded.secrets) as typeof server).url}`,
    });
    const vaulted = moved.length ? `; moved into the vault: ${moved.join(', ')}` : '';
    const list = `${tools.length} tools: ${tools.join(', ')}`;
    return { ok: true, message: `Saved MCP server "${name}" with ${list}${vaulted}. It starts within a few seconds.` };
  };
}

/** `kazma mcp remove` for the web page: remote servers only (a stdio server goes as it came, from the command line). */
export function remoteServerRemover(deps: { loaded: LoadedConfig; settings: RuntimeSettings }) {
  const servers = new McpRemoteServers({ settings: deps.settings, yaml: deps.loaded.config.mcp.servers });
  return async (name: string, actor: Actor): Promise<ActionResult> => {
    let removed: boolean;
    try {
      removed = await servers.removeRemote(name, actor.displayName ?? actor.id);
    } catch (error) {
      if (error instanceof McpStdioRefusedError) return { ok: false, message: error.message };
      throw error;
    }
    if (!removed) return { ok: false, message: `There is no MCP server "${name}".` };
    await deps.settings.audit({
      actor: { platform: actor.platform, id: actor.id, operator: actor.id },
      chat: 'web',
      command: `mcp remove ${name}`,
      outcome: 'changed',
    });
    return { ok: true, message: `Removed MCP server "${name}": it stops within a few seconds.` };
  };
}

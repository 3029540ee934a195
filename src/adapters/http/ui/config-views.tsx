import type { ViewContext } from './approvals-view.tsx';
import { Csrf, Notice } from './layout.tsx';
import { AddServerForm } from './mcp-form.tsx';
import { AgentSkillTable, SkillTable } from './skills-view.tsx';

/**
 * Tools on and off (the switches `/config tools toggle` sets), each skill's and Agent Skill's verification
 * verdict, each MCP server's state with its switch and (remote ones) Remove, and (for an operator) the form
 * that adds a remote MCP server.
 */
export async function toolsView(ctx: ViewContext) {
  const tools = ctx.core.tools();
  const servers = await ctx.core.servers();
  const skills = ctx.core.skills();
  const may = !ctx.session.readOnly;
  return (
    <>
      <h1>Tools</h1>
      <Notice notice={ctx.notice} />
      <table>
        <thead>
          <tr>
            <th>Tool</th>
            <th>Tier</th>
            <th>State</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {tools.map((tool) => (
            <tr data-tool={tool.name} data-on={String(tool.on)}>
              <td>{tool.name}</td>
              <td>{tool.tier}</td>
              <td>{tool.on ? 'on' : 'off'}</td>
              <td>
                {may && (
                  <form method="post" action={`/ui/tools/${encodeURIComponent(tool.name)}`}>
                    <Csrf session={ctx.session} />
                    <input type="hidden" name="on" value={tool.on ? 'false' : 'true'} />
                    <button type="submit">{tool.on ? 'Turn off' : 'Turn on'}</button>
                  </form>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2 id="skills">Skills</h2>
      <SkillTable skills={skills} />
      <h2>Agent Skills (SKILL.md)</h2>
      <AgentSkillTable skills={ctx.core.agentSkills()} />
      <h2>MCP servers</h2>
      {servers.length === 0 && <p class="muted">No MCP servers configured.</p>}
      {servers.map((server) => (
        <article class="card" data-server={server.name} data-state={server.state} data-on={String(server.on)}>
          <h3>{server.name}</h3>
          <p>
            {server.on ? 'on' : 'off'} · {server.state} · {server.transport} · {server.toolCount} tools
          </p>
          {server.lastError && <pre dir="auto">{server.lastError}</pre>}
          {may && <ServerButtons ctx={ctx} name={server.name} on={server.on} remote={server.transport !== 'stdio'} />}
        </article>
      ))}
      {may && <AddServerForm ctx={ctx} />}
    </>
  );
}

/**
 * A server's switch (the one `/config tools toggle <server>` sets) and, for a remote one, Remove (as `kazma
 * mcp remove`: it stays removed until added again). A stdio server is removed from the command line only.
 */
function ServerButtons(props: { ctx: ViewContext; name: string; on: boolean; remote: boolean }) {
  const at = `/ui/mcp/${encodeURIComponent(props.name)}`;
  return (
    <div class="buttons">
      <form method="post" action={`${at}/switch`}>
        <Csrf session={props.ctx.session} />
        <input type="hidden" name="on" value={props.on ? 'false' : 'true'} />
        <button type="submit" name="switch">
          {props.on ? 'Turn off' : 'Turn on'}
        </button>
      </form>
      {props.remote ? (
        <form method="post" action={`${at}/remove`}>
          <Csrf session={props.ctx.session} />
          <button type="submit" name="remove" class="danger">
            Remove
          </button>
        </form>
      ) : (
        <span class="muted">Runs a command here: removed with kazma mcp remove.</span>
      )}
    </div>
  );
}

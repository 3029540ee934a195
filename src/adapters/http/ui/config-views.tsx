import type { ViewContext } from './approvals-view.tsx';
import { Csrf, Notice } from './layout.tsx';
import { AddServerForm } from './mcp-form.tsx';
import { AgentSkillTable, SkillTable } from './skills-view.tsx';

/**
 * Tools on and off (the switches `/config tools toggle` sets), each skill's and Agent Skill's verification
 * verdict, each MCP server's state, and (for an operator) the form that adds a remote MCP server.
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
        <article class="card" data-server={server.name} data-state={server.state}>
          <h3>{server.name}</h3>
          <p>
            {server.on ? 'on' : 'off'} · {server.state} · {server.transport} · {server.toolCount} tools
          </p>
          {server.lastError && <pre dir="auto">{server.lastError}</pre>}
        </article>
      ))}
      {may && <AddServerForm ctx={ctx} />}
    </>
  );
}

import type { ViewContext } from './approvals-view.tsx';
import { Csrf } from './layout.tsx';

/**
 * "Add an MCP server": a remote (Streamable HTTP or SSE) server, checked as `kazma mcp add` checks it
 * (it must start and offer tools; a token is moved into the vault). A server that runs a command here
 * (stdio) is added only from the command line, by design: the form has no field for one.
 */
export function AddServerForm(props: { ctx: ViewContext }) {
  return (
    <form method="post" action="/ui/mcp" id="add-mcp" class="card add-server">
      <h3>Add an MCP server</h3>
      <Csrf session={props.ctx.session} />
      <label>
        Name <input type="text" name="name" required maxlength={32} pattern="[A-Za-z0-9_-]{1,32}" />
      </label>
      <label>
        URL <input type="text" name="url" required placeholder="https://mcp.example.com/mcp" />
      </label>
      <label>
        Transport{' '}
        <select name="transport">
          <option value="streamable_http">Streamable HTTP</option>
          <option value="sse">SSE</option>
        </select>
      </label>
      <label>
        Bearer token <input type="password" name="bearer" autocomplete="off" placeholder="optional" />
      </label>
      <label>
        Or a header <input type="text" name="header" autocomplete="off" placeholder="X-Api-Key: value (optional)" />
      </label>
      <label>
        Trust{' '}
        <select name="trust">
          <option value="untrusted">untrusted (its tools ask first)</option>
          <option value="trusted">trusted</option>
        </select>
      </label>
      <p class="muted">
        Kazma connects and lists its tools first: a server that does not start or has no tools is not saved. A token or
        header is moved into the vault. Servers that run a command on this machine (stdio) are added only with{' '}
        <code>kazma mcp add</code> on the command line.
      </p>
      <div class="buttons">
        <button type="submit" class="primary">
          Check and add
        </button>
      </div>
    </form>
  );
}

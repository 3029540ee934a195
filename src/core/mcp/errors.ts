import { KazmaError } from '../errors.ts';

/** An MCP server could not be started or reached; `notFound` when its command does not exist. */
export class McpStartError extends KazmaError {
  readonly notFound: boolean;
  /** What the server wrote to stderr before it failed (stdio), cut to the last lines. */
  readonly stderr: string;
  constructor(server: string, message: string, options: { notFound?: boolean; stderr?: string; cause?: unknown } = {}) {
    super(
      options.notFound ? 'mcp_command_not_found' : 'mcp_start_failed',
      `MCP server "${server}" did not start: ${message}`,
      { cause: options.cause },
    );
    this.notFound = options.notFound ?? false;
    this.stderr = options.stderr ?? '';
  }
}

/** A `vault://` pointer in a server's settings could not be resolved; `field` names where it is. */
export class McpSecretError extends KazmaError {
  constructor(
    server: string,
    readonly field: string,
    reason: string,
  ) {
    super(
      'mcp_secret_unresolved',
      `MCP server "${server}": ${field} points into the vault but ${reason}; store it with "kazma vault set" or ` +
        `change the setting`,
    );
  }
}

/** A name given to `/config`, `kazma mcp` or `kazma tools` is not a known server or tool. */
export class McpUnknownServerError extends KazmaError {
  constructor(name: string, known: readonly string[]) {
    super(
      'mcp_unknown_server',
      `there is no MCP server "${name}"${known.length ? `; servers: ${known.join(', ')}` : ''}`,
    );
  }
}

/** A stdio server (a command run on this machine) offered to what adds remote servers only (the web page). */
export class McpStdioRefusedError extends KazmaError {
  constructor(name: string, action: 'add' | 'remove' = 'add') {
    super(
      'mcp_stdio_refused',
      `"${name}" runs a command on this machine: such MCP servers are ${action === 'add' ? 'added' : 'removed'} ` +
        `only from the command line (kazma mcp ${action}), never from the web page`,
    );
  }
}

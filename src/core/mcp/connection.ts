import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { withTimeout } from '../with-timeout.ts';
import { McpStartError } from './errors.ts';
import type { McpServerConfig } from '../config/index.ts';
import { createTransport, StderrTail } from './transport.ts';

/**
 * Asks a person whether a server may have what it requested (a sampling or elicitation request) and, if
 * so, produces the answer. Not given: every such request is refused.
 */
export type McpServerRequestHandler = (request: {
  server: string;
  kind: 'sampling' | 'elicitation';
  params: unknown;
}) => Promise<Record<string, unknown>>;

/** Options for {@link connectServer}. */
export interface ConnectOptions {
  /** The parent environment; a stdio server gets only its allowlisted basics. */
  env: Readonly<Record<string, string | undefined>>;
  /** How long connecting and listing may take. Default 30 s (an `npx -y` download can be slow). */
  timeoutMs?: number;
  /** Handles sampling/elicitation requests of servers that enabled them; default none (refused). */
  onServerRequest?: McpServerRequestHandler;
}

/** A connected MCP server: its tools as listed at connect time, and the calls Kazma makes to it. */
export interface McpConnection {
  readonly client: Client;
  readonly tools: readonly Tool[];
  readonly stderr: StderrTail;
  close(): Promise<void>;
}

/**
 * Connects to one server (secrets already resolved) and lists its tools. Sampling and elicitation are
 * declared so a server can ask, and every request is refused unless the server's `sampling` /
 * `elicitation` setting is on — and then it goes to `onServerRequest` (approval first).
 * Throws {@link McpStartError} with the server's stderr when it cannot start.
 */
export async function connectServer(server: McpServerConfig, options: ConnectOptions): Promise<McpConnection> {
  const client = new Client({ name: 'kazma', version: '0.1.0' }, { capabilities: { sampling: {}, elicitation: {} } });
  const refuseUnless = (kind: 'sampling' | 'elicitation', enabled: boolean) => async (request: { params: unknown }) => {
    if (!enabled)
      throw new McpError(
        ErrorCode.InvalidRequest,
        `Kazma refused the ${kind} request: ${kind} is not enabled for MCP server "${server.name}" ` +
          `(mcp.servers[].${kind}: true turns it on; each request then needs approval)`,
      );
    if (!options.onServerRequest)
      throw new McpError(
        ErrorCode.InvalidRequest,
        `Kazma refused the ${kind} request: no one can approve it in this process`,
      );
    return options.onServerRequest({ server: server.name, kind, params: request.params }) as never;
  };
  client.setRequestHandler(CreateMessageRequestSchema, refuseUnless('sampling', server.sampling));
  client.setRequestHandler(ElicitRequestSchema, refuseUnless('elicitation', server.elicitation));
  const stderr = new StderrTail();
  const transport = createTransport(server, options.env, stderr);
  try {
    const tools = await withTimeout(
      (async () => {
        await client.connect(transport);
        return (await client.listTools()).tools;
      })(),
      options.timeoutMs ?? 30_000,
    );
    return { client, tools, stderr, close: () => client.close() };
  } catch (error) {
    await client.close().catch(() => undefined);
    // Give a dying child a moment to say why on stderr.
    await new Promise((resolve) => setTimeout(resolve, 50));
    throw startError(server.name, error, stderr.text);
  }
}

const NOT_FOUND = /ENOENT|command not found|E404|not found in the npm registry|Cannot find module/i;

function startError(name: string, error: unknown, stderr: string): McpStartError {
  // undici says only "fetch failed"; the reason (ECONNREFUSED, a TLS error) is in its cause.
  const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
  const message = `${error instanceof Error ? error.message : String(error)}${cause}`;
  const notFound =
    (error as NodeJS.ErrnoException)?.code === 'ENOENT' || NOT_FOUND.test(message) || NOT_FOUND.test(stderr);
  return new McpStartError(
    name,
    notFound && !NOT_FOUND.test(message) ? `${message} (the command was not found)` : message,
    { notFound, stderr, cause: error },
  );
}

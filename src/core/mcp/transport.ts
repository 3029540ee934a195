import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { stdioEnv } from './env.ts';
import type { McpServerConfig } from '../config/index.ts';

/** The last few kilobytes a stdio server wrote to stderr: shown when it fails to start. */
export class StderrTail {
  #text = '';
  push(chunk: Buffer | string): void {
    this.#text = (this.#text + chunk.toString()).slice(-4000);
  }
  get text(): string {
    return this.#text.trim();
  }
}

/**
 * The SDK transport for a server whose secrets are already resolved. A stdio server's stderr is kept in
 * `stderr` (never inherited: it would mix into Kazma's log unmasked).
 */
export function createTransport(
  server: McpServerConfig,
  parentEnv: Readonly<Record<string, string | undefined>>,
  stderr: StderrTail,
): Transport {
  if (server.transport === 'stdio') {
    const transport = new StdioClientTransport({
      command: server.command,
      args: server.args,
      env: stdioEnv(parentEnv, server.env),
      stderr: 'pipe',
      ...(server.cwd && { cwd: server.cwd }),
    });
    transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
    return transport;
  }
  const headers: Record<string, string> = {};
  if (server.auth) {
    if ('bearer' in server.auth) headers.authorization = `Bearer ${server.auth.bearer}`;
    else headers[server.auth.header] = server.auth.value;
  }
  const url = new URL(server.url);
  if (server.transport === 'sse')
    return new SSEClientTransport(url, {
      requestInit: { headers },
      eventSourceInit: {
        fetch: (u, init) =>
          fetch(u, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }),
      },
    });
  return new StreamableHTTPClientTransport(url, { requestInit: { headers } });
}

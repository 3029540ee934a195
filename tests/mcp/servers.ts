// The real MCP servers the tests run against: server-everything (stdio, or Streamable HTTP as a child on
// a free port) and server-filesystem, both from npm.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freshDatabase, type FreshDatabase } from '../helpers/databases.ts';
import { eventually } from '../helpers/eventually.ts';
import { FakeClock } from '../helpers/fake-clock.ts';
import { McpManager } from '../../src/core/mcp/manager.ts';
import { mcpServersSchema } from '../../src/core/config/mcp-schema.ts';
import { McpServerEditor } from '../../src/core/mcp/server-settings.ts';
import { McpStateStore } from '../../src/core/mcp/state-store.ts';
import { RuntimeSettings } from '../../src/core/settings/store.ts';
import { ToolRegistry } from '../../src/core/tools/registry.ts';
import { freePort } from '../helpers/free-port.ts';

const resolve = createRequire(import.meta.url).resolve;
export const EVERYTHING = resolve('@modelcontextprotocol/server-everything/dist/index.js');
export const FILESYSTEM = resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

/** server-everything over stdio, as kazma.yaml names it. */
export const everythingStdio = (name = 'everything', extra: Record<string, unknown> = {}) => ({
  name,
  command: process.execPath,
  args: [EVERYTHING, 'stdio'],
  ...extra,
});

/**
 * True when `url` answers an MCP initialize with a session: a Streamable HTTP MCP server listens there.
 * Over a connection of its own (no pool): a pooled keep-alive socket the server closes a moment later
 * would be handed to the client under test ("other side closed").
 */
function isMcp(url: string): Promise<boolean> {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
  };
  return new Promise((done) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      },
      (res) => {
        res.resume();
        done(res.statusCode === 200 && typeof res.headers['mcp-session-id'] === 'string');
        res.destroy();
      },
    );
    req.on('error', () => done(false));
    req.end(JSON.stringify(initialize));
  });
}

/**
 * server-everything in Streamable HTTP mode as a child; `stop()` sends SIGTERM. A port picked free can
 * be taken by another test's server before this child binds it (the child then exits), so readiness is
 * an MCP answer (a session id), never just any HTTP answer, and a child that dies is started again on
 * another port.
 */
export async function everythingHttp(): Promise<{ url: string; stop(): Promise<void> }> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const child: ChildProcess = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
      env: { PATH: process.env.PATH, PORT: String(port) },
      stdio: 'ignore',
    });
    const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
    const url = `http://127.0.0.1:${port}/mcp`;
    // Up, or exited (the port was taken: try another); a server that never answers is tried again too.
    const up = await eventually(
      async () => (child.exitCode !== null ? 'exited' : (await isMcp(url)) ? 'up' : undefined),
      (state) => state,
      'server-everything to answer',
      { timeoutMs: 60_000, intervalMs: 200 },
    ).then(
      (state) => state === 'up',
      () => false,
    );
    if (up && child.exitCode === null) {
      return {
        url,
        stop: async () => {
          if (child.exitCode === null) child.kill('SIGTERM');
          await exited;
        },
      };
    }
    child.kill('SIGTERM');
    await exited;
  }
  throw new Error('server-everything did not listen on a free port in 5 attempts');
}

/**
 * An HTTP gate in front of `target` (an MCP server's URL) that lets a request through only with HTTP
 * Basic auth for `user` and `password`, as a hosted MCP server behind a login would; anything else gets
 * 401. Requests and answers (SSE streams too) are piped through unchanged. `seen` holds every
 * Authorization header it was sent.
 */
export async function basicAuthGate(
  target: string,
  user: string,
  password: string,
): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const expected = `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
  const seen: string[] = [];
  const to = new URL(target);
  const server = createServer((req, res) => {
    seen.push(req.headers.authorization ?? '');
    if (req.headers.authorization !== expected) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="mcp"' }).end('unauthorized');
      return;
    }
    const upstream = request(
      {
        host: to.hostname,
        port: to.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, host: to.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${to.pathname}`,
    seen,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

/** A manager on a fresh PGlite with a FakeClock, for servers given as kazma.yaml would give them. */
export async function managerFor(
  servers: unknown[],
  options: { env?: Record<string, string | undefined>; safeTools?: string[] } = {},
) {
  const database: FreshDatabase = await freshDatabase('pglite');
  const clock = new FakeClock();
  const registry = new ToolRegistry();
  const settings = new McpServerEditor({
    settings: new RuntimeSettings(database.db),
    yaml: mcpServersSchema.parse(servers),
  });
  const store = new McpStateStore(database.db);
  const manager = new McpManager({
    settings,
    store,
    registry,
    clock,
    env: options.env ?? { PATH: process.env.PATH },
    safeTools: options.safeTools ?? [],
    secrets: ['sk-planted-secret-value'],
  });
  return {
    manager,
    registry,
    store,
    settings,
    clock,
    database,
    async close() {
      await manager.close();
      await database.dispose();
    },
  };
}

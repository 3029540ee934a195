// The embedded database served to this machine's other Kazma commands while one process owns it.
//
// PGlite is one process's: a second process opening the directory loses rows. So the owner (`kazma start`,
// `kazma chat`) serves it over a unix socket in data_dir, speaking PostgreSQL's protocol (pglite-socket),
// and `kazma vault set`, `tools toggle`, `mcp add`, a second `kazma chat` … connect to that socket as they
// would to PostgreSQL. Who may connect is decided by the file system: the socket lives in a directory only
// the owner's user can enter (0700), and the socket itself is 0600. pglite-socket asks for no password.
import { chmodSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { ClientGate } from './embedded-gate.ts';

/** The port number in the socket's name; PostgreSQL clients derive the file name from it. */
export const EMBEDDED_SOCKET_PORT = 5432;

/** Unix socket paths are limited to 107 bytes on Linux (sun_path); a longer data_dir cannot be served. */
const MAX_SOCKET_PATH = 107;

/** The directory holding the socket: PostgreSQL clients take it as their `host`. */
export function embeddedSocketDir(dataDir: string): string {
  return join(dataDir, 'socket');
}

/** The socket file itself, named as PostgreSQL clients expect (`<host>/.s.PGSQL.<port>`). */
export function embeddedSocketPath(dataDir: string): string {
  return join(embeddedSocketDir(dataDir), `.s.PGSQL.${EMBEDDED_SOCKET_PORT}`);
}

export interface EmbeddedServer {
  readonly path: string;
  stop(): Promise<void>;
}

/**
 * Serves `pglite` at {@link embeddedSocketPath}. Call it only while holding data_dir's lock: a socket file
 * left by a process that died is removed first. Undefined when the path would be too long for a socket.
 */
export async function serveEmbeddedDatabase(pglite: PGlite, dataDir: string): Promise<EmbeddedServer | undefined> {
  const path = embeddedSocketPath(dataDir);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) return undefined;
  mkdirSync(embeddedSocketDir(dataDir), { recursive: true, mode: 0o700 });
  chmodSync(embeddedSocketDir(dataDir), 0o700);
  if (existsSync(path)) rmSync(path, { force: true });
  // Loaded here: only an owner of the embedded database pays for it.
  const { PGLiteSocketServer } = await import('./pglite-socket-driver.ts');
  const server = new PGLiteSocketServer({
    db: new ClientGate(pglite) as unknown as PGlite,
    path,
    // A command opens a few connections (drizzle's pool, the checkpointer's); several may run at once.
    maxConnections: 32,
    // A client that stops inside a transaction (a command suspended at a terminal) holds every statement of
    // the owner; after this long idle its connection is closed, which rolls its transaction back.
    idleTimeout: 30_000,
  });
  await server.start();
  chmodSync(path, 0o600);
  return {
    path,
    stop: async () => {
      await server.stop();
      rmSync(path, { force: true });
    },
  };
}

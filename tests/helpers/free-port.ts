import { createServer } from 'node:net';

/** A TCP port nothing listens on right now (asked of the OS, then released), for a child to bind. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

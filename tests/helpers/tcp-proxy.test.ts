// The TCP proxy that cuts a database off: its port is free while cut, and another socket may take it for a
// while. Restored, the proxy listens again as soon as the port is free, and connections pass once more.
import { createServer, connect } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { eventually } from './eventually.ts';
import { startTcpProxy } from './tcp-proxy.ts';

const cleanup: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** Resolves with what the server at `port` answers; rejects with the connection's error, or if it closes first. */
function ask(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('data', (data) => {
      resolve(String(data));
      socket.destroy();
    });
    socket.once('error', reject);
    socket.once('close', () => reject(new Error('closed without an answer')));
  });
}

it('restored while another socket holds its port, the proxy listens once the port is free again', async () => {
  const target = createServer((socket) => socket.end('from the target'));
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  const targetPort = (target.address() as { port: number }).port;
  const proxy = await startTcpProxy({ host: '127.0.0.1', port: targetPort });
  cleanup.push(
    () => new Promise((resolve) => target.close(resolve)),
    () => proxy.close(),
  );
  expect(await ask(proxy.port)).toBe('from the target');

  proxy.cut();
  await expect(ask(proxy.port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  // Someone else takes the port while it is free.
  const squatter = createServer((socket) => socket.end('from the squatter'));
  await new Promise<void>((resolve) => squatter.listen(proxy.port, '127.0.0.1', resolve));
  proxy.restore();
  expect(await ask(proxy.port)).toBe('from the squatter');
  await new Promise((resolve) => squatter.close(resolve));

  await eventually(
    () => ask(proxy.port).catch(() => undefined),
    (answer) => answer === 'from the target',
    'the proxy passing connections again',
  );
});

it('closed while a restore waits for its port, the proxy does not listen again after', async () => {
  const proxy = await startTcpProxy({ host: '127.0.0.1', port: 9 });
  proxy.cut();
  const squatter = createServer((socket) => socket.end('from the squatter'));
  await new Promise<void>((resolve) => squatter.listen(proxy.port, '127.0.0.1', resolve));
  proxy.restore();
  // Its first tries found the port taken; the next one is due.
  await new Promise((resolve) => setTimeout(resolve, 120));
  await proxy.close();
  await new Promise((resolve) => squatter.close(resolve));
  // Several retry periods later, nothing listens on the port.
  await new Promise((resolve) => setTimeout(resolve, 300));
  await expect(ask(proxy.port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
});

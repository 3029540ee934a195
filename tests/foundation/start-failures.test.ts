// A start that cannot happen says which key to change and how, in one line, and exits 1 — not a stack.
import { createServer, type Server } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { runKazma, writeConfig } from '../helpers/kazma-process.ts';

let busy: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => (busy ? busy.close(resolve) : resolve(undefined)));
  busy = undefined;
});

it('a port in use names http.port and the fix', async () => {
  busy = createServer();
  const port = await new Promise<number>((resolve) =>
    busy!.listen(0, '127.0.0.1', () => resolve((busy!.address() as { port: number }).port)),
  );
  const { path } = writeConfig(`http: { port: ${port} }\n`);
  const { code, stderr } = await runKazma(['start', '--config', path], {
    env: { DATABASE_URL: undefined, REDIS_URL: undefined },
  });
  expect(stderr.trim().split('\n').at(-1)).toBe(
    `kazma: http.port ${port} is already in use on 127.0.0.1 (another Kazma, or another program, listens there): ` +
      'stop it, or set http.port in kazma.yaml to a free port',
  );
  expect(stderr).not.toMatch(/\n\s+at /);
  expect(code).toBe(1);
}, 120_000);

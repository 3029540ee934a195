// A start that cannot happen says which key to change and how, in one line, and exits 1 — not a stack.
// `kazma chat` needs no HTTP port of its own unless a platform receives over it: then a taken port is
// stepped around, said once, and the terminal chat still answers.
import { createServer, type Server } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { startFakeTelegram } from '../fakes/telegram/index.ts';
import { runKazma, writeConfig } from '../helpers/kazma-process.ts';

const CLEAN_ENV = { DATABASE_URL: undefined, REDIS_URL: undefined, TELEGRAM_TOKEN: undefined };

let busy: Server | undefined;
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  await new Promise((resolve) => (busy ? busy.close(resolve) : resolve(undefined)));
  busy = undefined;
  for (const step of cleanup.splice(0)) await step();
});

/** A port another program listens on. */
async function takenPort(): Promise<number> {
  busy = createServer();
  return new Promise<number>((resolve) =>
    busy!.listen(0, '127.0.0.1', () => resolve((busy!.address() as { port: number }).port)),
  );
}

it('a port in use names http.port and the fix', async () => {
  const port = await takenPort();
  const { path } = writeConfig(`http: { port: ${port} }\n`);
  const { code, stderr } = await runKazma(['start', '--config', path], { env: CLEAN_ENV });
  expect(stderr.trim().split('\n').at(-1)).toBe(
    `kazma: http.port ${port} is already in use on 127.0.0.1 (another Kazma, or another program, listens there): ` +
      'stop it, or set http.port in kazma.yaml to a free port',
  );
  expect(stderr).not.toMatch(/\n\s+at /);
  expect(code).toBe(1);
}, 120_000);

it('kazma chat on a taken http.port answers anyway, on a free port it names once', async () => {
  const port = await takenPort();
  const { path } = writeConfig(`http: { port: ${port} }\n`);
  const { code, stdout, stderr } = await runKazma(['chat', '--config', path], { env: CLEAN_ENV, input: '/status\n' });
  expect(stderr).not.toMatch(/\n\s+at /);
  expect(code, stderr).toBe(0);
  expect(stdout).toMatch(/^kazma> /m);
  const said = stderr.split('\n').filter((line) => line.includes(`http.port ${port} is in use`));
  expect(said).toHaveLength(1);
  expect(said[0]).toMatch(/this chat serves its web page and API on port \d+ instead/);
}, 120_000);

it('kazma chat whose Telegram webhook arrives on http.port still stops when the port is taken', async () => {
  const telegram = await startFakeTelegram();
  cleanup.push(() => telegram.close());
  const port = await takenPort();
  const { path } = writeConfig(
    `http: { port: ${port} }\n` +
      `telegram: { enabled: true, token: "${telegram.token}", api_root: "${telegram.apiRoot}", ` +
      'mode: webhook, webhook_secret: s3cret }\n',
  );
  const { code, stderr } = await runKazma(['chat', '--config', path], { env: CLEAN_ENV, input: '/status\n' });
  expect(stderr.trim().split('\n').at(-1)).toBe(
    `kazma: http.port ${port} is already in use on 127.0.0.1 (another Kazma, or another program, listens there): ` +
      'stop it, or set http.port in kazma.yaml to a free port (telegram.mode webhook receives on it)',
  );
  expect(code).toBe(1);
}, 120_000);

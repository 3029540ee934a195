// The admin CLI beside a running `kazma start` on the embedded database (issue 42 §3): the owner serves its
// PGlite on a unix socket in data_dir, and every command goes through it instead of stopping with "Another
// Kazma is already using …". Both states are driven: running (through the socket) and stopped (the command
// opens data_dir itself), with the same data seen by each.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeLlm } from '../fakes/llm-server.ts';
import { startFakeTelegram } from '../fakes/telegram/index.ts';
import { MAYA } from '../adapters/telegram/harness.ts';
import { seedPgliteDataDir } from '../helpers/databases.ts';
import { eventually } from '../helpers/eventually.ts';
import { KazmaProcess, runKazma, writeConfig } from '../helpers/kazma-process.ts';

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const ENV = { DATABASE_URL: undefined, REDIS_URL: undefined, KAZMA_VAULT_KEY: 'a passphrase for this test' };

async function setup() {
  const fake = await startFakeTelegram();
  const llm = await startFakeLlm();
  cleanup.push(
    () => fake.close(),
    () => llm.close(),
  );
  const { dir, path } = writeConfig(`
http: { port: 0 }
model: { name: fake-model, base_url: "${llm.baseURL}", max_retries: 1 }
access: { operators: [{ name: Maya, telegram: "${MAYA.id}" }] }
telegram: { enabled: true, token: "${fake.token}", api_root: "${fake.apiRoot}" }
shutdown: { timeout: 5s }
`);
  await seedPgliteDataDir(join(dir, 'kazma-data'));
  return { fake, llm, config: path, dir };
}

describe('admin commands while Kazma runs on the embedded database', () => {
  it('vault, tools, mcp, hub, agent-skills and chat work beside start, and the running process applies them', async () => {
    const { fake, llm, config, dir } = await setup();
    const kazma = new KazmaProcess(['start', '--config', config], { env: ENV });
    cleanup.push(() => kazma.kill('SIGKILL'));
    await kazma.waitForLog((line) => line.msg === 'telegram started');
    // Only the owner's user may reach the socket.
    const socket = join(dir, 'kazma-data', 'socket', '.s.PGSQL.5432');
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'kazma-data', 'socket')).mode & 0o777).toBe(0o700);

    const stored = await runKazma(['vault', 'set', 'gh', '--config', config], { env: ENV, input: 'ghp_secret\n' });
    expect(stored.stderr).not.toMatch(/Another Kazma/);
    expect(stored.code).toBe(0);
    const listed = await runKazma(['vault', 'list', '--config', config], { env: ENV });
    expect(listed.stdout.trim()).toBe('gh');

    for (const args of [
      ['tools', 'list'],
      ['mcp', 'list'],
      ['hub', 'list'],
      ['agent-skills', 'list'],
    ]) {
      const run = await runKazma([...args, '--config', config], { env: ENV });
      expect(run.stderr, args.join(' ')).not.toMatch(/Another Kazma|unexpected error/);
      expect(run.code, args.join(' ')).toBe(0);
    }

    // Switched off by the CLI, the tool is no longer offered to the model by the running process, within seconds.
    const offered = () => (llm.requests.at(-1)?.tools ?? []).map((t) => t.function.name);
    fake.sendUserMessage({ chatId: MAYA.id, from: MAYA, text: 'ping 0' });
    await eventually(
      async () => fake.messages(MAYA.id),
      (ms) => ms.find((m) => m.text === 'echo: ping 0'),
      'ping 0',
    );
    expect(offered()).toContain('write_file');
    const toggled = await runKazma(['tools', 'toggle', 'write_file', '--config', config], { env: ENV });
    expect(toggled.stdout).toMatch(/write_file is off/);
    let pings = 0;
    await eventually(
      async () => {
        const text = `ping ${++pings}`;
        fake.sendUserMessage({ chatId: MAYA.id, from: MAYA, text });
        await eventually(
          async () => fake.messages(MAYA.id),
          (ms) => ms.find((m) => m.text === `echo: ${text}`),
          text,
        );
        return offered();
      },
      (tools) => tools.length > 0 && !tools.includes('write_file'),
      'the running process no longer offering write_file',
      { timeoutMs: 20_000, intervalMs: 1000 },
    );

    // A second chat surface on the same database, through the owner's socket, while start keeps serving.
    const chat = await runKazma(['chat', '--config', config], { env: ENV, input: 'hello from the terminal\n' });
    expect(chat.stderr).not.toMatch(/Another Kazma/);
    expect(chat.stdout).toContain('echo: hello from the terminal');
    expect(chat.code).toBe(0);
    fake.sendUserMessage({ chatId: MAYA.id, from: MAYA, text: 'still there?' });
    await eventually(
      async () => fake.messages(MAYA.id),
      (ms) => ms.find((m) => m.text === 'echo: still there?'),
      'the running process still answering Telegram',
    );

    // A second server is still refused: the socket is for commands, not for another owner of the platforms.
    const second = await runKazma(['start', '--config', config], { env: ENV });
    expect(second.stderr).toMatch(/Another Kazma \(pid \d+\) is already using/);
    expect(second.code).not.toBe(0);

    kazma.kill('SIGTERM');
    expect((await kazma.exited).code).toBe(0);
    // Stopped: the command opens data_dir itself and reads what was written through the socket.
    const after = await runKazma(['vault', 'list', '--config', config], { env: ENV });
    expect(after.stdout.trim()).toBe('gh');
    expect(after.code).toBe(0);
  });
});

// `kazma init` from the built CLI, against the fake Telegram and the fake model: non-interactively with
// flags, then `kazma start` on the file it wrote answers a message with no hand edits; driven by piped
// answers as a person would type them; and never over an existing kazma.yaml without --force.
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeLlm } from '../fakes/llm-server.ts';
import { startFakeTelegram } from '../fakes/telegram/index.ts';
import { eventually } from '../helpers/eventually.ts';
import { KazmaProcess, runKazma } from '../helpers/kazma-process.ts';

const MAYA = { id: 42, first_name: 'Maya' };

/** The well-known variables unset: only what init wrote may reach the child. */
const CLEAN_ENV = {
  DATABASE_URL: undefined,
  REDIS_URL: undefined,
  KAZMA_VAULT_KEY: undefined,
  KAZMA_CONFIG: undefined,
  KAZMA_MODEL: undefined,
  OPENAI_API_KEY: undefined,
  OPENAI_BASE_URL: undefined,
  ANTHROPIC_API_KEY: undefined,
  TELEGRAM_TOKEN: undefined,
};

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function fakes() {
  const telegram = await startFakeTelegram();
  const llm = await startFakeLlm();
  cleanup.push(
    () => telegram.close(),
    () => llm.close(),
  );
  return { telegram, llm, dir: mkdtempSync(join(tmpdir(), 'kazma-init-')) };
}

describe('kazma init', () => {
  it('with flags writes a file kazma start answers Telegram with, secrets in the vault', async () => {
    const { telegram, llm, dir } = await fakes();
    const init = await runKazma(
      [
        'init',
        '--yes',
        ...['--model', 'fake-model', '--base-url', llm.baseURL, '--api-key', 'sk-test-123456'],
        ...['--telegram-token', telegram.token, '--telegram-api-root', telegram.apiRoot],
        ...['--operator', 'Maya', '--operator-id', `telegram:${MAYA.id}`, '--data-dir', './data', '--http-port', '0'],
      ],
      { cwd: dir, env: CLEAN_ENV },
    );
    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    expect(init.stdout).toMatch(/✓ model: /);
    expect(init.stdout).toMatch(/✓ telegram token: bot @kazma_test_bot/);
    expect(init.stdout).toContain('Next: Telegram: open https://t.me/kazma_test_bot');
    expect(init.stdout).toContain('Start Kazma: kazma start');
    const yaml = readFileSync(join(dir, 'kazma.yaml'), 'utf8');
    expect(yaml).not.toContain(telegram.token);
    expect(yaml).not.toContain('sk-test-123456');
    expect(yaml).toContain('token: "vault://telegram-token"');
    expect(statSync(join(dir, 'data', 'vault.key')).mode & 0o777).toBe(0o600);

    const kazma = new KazmaProcess(['start'], { cwd: dir, env: CLEAN_ENV });
    cleanup.push(() => kazma.kill('SIGKILL'));
    // Started: its stop on SIGTERM is graceful only from here.
    await kazma.waitForLog((line) => line.msg === 'kazma started');
    telegram.sendUserMessage({ chatId: MAYA.id, from: MAYA, text: 'hello from init' });
    await eventually(
      async () => telegram.messages(MAYA.id),
      (ms) => ms.find((m) => m.text === 'echo: hello from init'),
      'the answer to the first message',
    );
    // The key reached the model from the vault, never from the file.
    expect(llm.attempts.at(-1)?.headers.authorization).toBe('Bearer sk-test-123456');
    kazma.kill('SIGTERM');
    expect(await kazma.exited, `${kazma.stderr}\n${kazma.stdout.slice(-3000)}`).toEqual({ code: 0, signal: null });
  });

  it('asks at a prompt, taking piped answers; a token that fails is asked for again', async () => {
    const { telegram, llm, dir } = await fakes();
    const answers = [
      'openai', // provider
      llm.baseURL, // base URL
      'fake-model', // model name
      'sk-test-123456', // API key
      'telegram', // platforms
      'not-a-token', // Telegram token: refused by the fake
      'n', // keep it anyway? no: asked again
      telegram.token,
      'Maya', // operator name
      String(MAYA.id), // Telegram user id
    ];
    const proc = await runKazma(['init', '--data-dir', './data', '--telegram-api-root', telegram.apiRoot], {
      cwd: dir,
      env: CLEAN_ENV,
      input: `${answers.join('\n')}\n`,
    });
    const { code } = proc;
    expect(proc.stderr).toBe('');
    expect(code).toBe(0);
    expect(proc.stdout).toMatch(/✗ telegram token: /);
    expect(proc.stdout).toMatch(/✓ telegram token: bot @kazma_test_bot/);
    expect(proc.stdout).toContain('@BotFather');
    const yaml = readFileSync(join(dir, 'kazma.yaml'), 'utf8');
    expect(yaml).toContain(`- { name: "Maya", telegram: "${MAYA.id}" }`);
    expect(yaml).toContain('name: "fake-model"');
    const check = await runKazma(['config', 'check'], { cwd: dir, env: CLEAN_ENV });
    expect(check.code).toBe(0);
  });

  it('without an operator id, prints a one-time code whose sender becomes the operator', async () => {
    const { telegram, llm, dir } = await fakes();
    const init = await runKazma(
      [
        'init',
        '--yes',
        ...['--model', 'fake-model', '--base-url', llm.baseURL, '--api-key', 'sk-test-123456'],
        ...['--telegram-token', telegram.token, '--telegram-api-root', telegram.apiRoot],
        ...['--operator', 'Maya', '--data-dir', './data', '--http-port', '0'],
      ],
      { cwd: dir, env: CLEAN_ENV },
    );
    expect(init.code).toBe(0);
    const code = /send the bot in a private message: \/start ([A-Z0-9]{8})/.exec(init.stdout)?.[1];
    expect(code, init.stdout).toBeDefined();
    expect(init.stdout).toContain(`https://t.me/kazma_test_bot?start=${code}`);
    expect(readFileSync(join(dir, 'kazma.yaml'), 'utf8')).toContain('- { name: "Maya" }');

    const kazma = new KazmaProcess(['start'], { cwd: dir, env: CLEAN_ENV });
    cleanup.push(() => kazma.kill('SIGKILL'));
    // Started: its stop on SIGTERM is graceful only from here.
    await kazma.waitForLog((line) => line.msg === 'kazma started');
    telegram.sendUserMessage({ chatId: MAYA.id, from: MAYA, text: `/start ${code}` });
    await eventually(
      async () => telegram.messages(MAYA.id),
      (ms) => ms.find((m) => m.text.startsWith(`✅ You are now the operator Maya (telegram:${MAYA.id})`)),
      'the claim taken',
    );
    telegram.sendUserMessage({ chatId: MAYA.id, from: MAYA, text: 'now an operator' });
    await eventually(
      async () => telegram.messages(MAYA.id),
      (ms) => ms.find((m) => m.text === 'echo: now an operator'),
      'an answer to the operator',
    );
    const OMAR = { id: 77, first_name: 'Omar' };
    telegram.sendUserMessage({ chatId: OMAR.id, from: OMAR, text: `/start ${code}` });
    await eventually(
      async () => telegram.messages(OMAR.id),
      (ms) => ms.find((m) => m.text.startsWith('That operator code was already used')),
      'a used code refused',
    );
    kazma.kill('SIGTERM');
    expect((await kazma.exited).code).toBe(0);
  });

  it('refuses to replace an existing kazma.yaml, naming --force; with --force it does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kazma-init-'));
    writeFileSync(join(dir, 'kazma.yaml'), 'log: { level: warn }\n');
    const args = ['init', '--yes', '--skip-checks', '--data-dir', './data', '--operator', 'Maya'];
    const refused = await runKazma(args, { cwd: dir, env: CLEAN_ENV });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      'kazma init: kazma.yaml exists and was left as it is; replace it with kazma init --force, or write another ' +
        'file with kazma init --config FILE\n',
    );
    expect(readFileSync(join(dir, 'kazma.yaml'), 'utf8')).toBe('log: { level: warn }\n');
    const forced = await runKazma([...args, '--force'], { cwd: dir, env: CLEAN_ENV });
    expect(forced.code).toBe(0);
    expect(readFileSync(join(dir, 'kazma.yaml'), 'utf8')).toContain('- { name: "Maya" }');
  });
});

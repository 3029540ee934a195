// "An inbound message is durable before it is acknowledged", with real processes:
//  - PostgreSQL cut off through a TCP proxy: the Telegram webhook answers 503 (not 200), and the update
//    Telegram delivers again after the database is back is answered exactly once;
//  - kill -9 while the model is thinking: the next start answers the message once;
//  - a message whose turn kills the process every time ends, after turns.max_attempts, with one ⚠️.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram/index.ts';
import { killAll, spawnNode, type Spawned } from '../agent/helpers/spawn.ts';
import { REPO_ROOT } from '../helpers/repo-root.ts';
import { eventually } from '../helpers/eventually.ts';
import { createPgDatabase, seedPgliteDataDir } from '../helpers/databases.ts';
import { writeConfig } from '../helpers/kazma-process.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';
import { MAYA } from '../adapters/telegram/harness.ts';

const START_CHILD = join(REPO_ROOT, 'tests/chat/fixtures/start-child.ts');
const SECRET = 'durable-inbound-secret';
const cleanup: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  killAll();
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function fakes(): Promise<{ fake: FakeTelegram; llm: FakeLlm; dir: string }> {
  const fake = await startFakeTelegram();
  const llm = await startFakeLlm();
  const dir = mkdtempSync(join(tmpdir(), 'kazma-inbound-'));
  await seedPgliteDataDir(join(dir, 'data'));
  cleanup.push(
    () => fake.close(),
    () => llm.close(),
    () => rmSync(dir, { recursive: true, force: true }),
  );
  return { fake, llm, dir };
}

function start(config: string, marker: string): Spawned {
  return spawnNode(START_CHILD, ['--config', config, '--marker', marker]);
}

/** JSON log lines a child printed. */
function logs(child: Spawned): Array<Record<string, unknown>> {
  return child
    .stdout()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

async function waitForLog(child: Spawned, msg: string, timeoutMs = 60_000): Promise<Record<string, unknown>> {
  return eventually(
    () => logs(child),
    (lines) => lines.find((l) => l.msg === msg),
    () => `the log line "${msg}"; stderr:\n${child.stderr()}`,
    timeoutMs,
  );
}

const texts = (fake: FakeTelegram) => fake.messages(MAYA.id).map((m) => m.text);

describe('inbound durability, with real processes', () => {
  it('answers the webhook 503 while PostgreSQL is cut off, and the redelivered update exactly once after', async () => {
    const { fake, llm, dir } = await fakes();
    const db = await createPgDatabase();
    cleanup.push(db.drop);
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(db.url).port || 5432) });
    cleanup.push(() => proxy.close());
    const url = new URL(db.url);
    url.port = String(proxy.port);
    const { path } = writeConfig(
      `
data_dir: ${join(dir, 'data')}
http: { port: 0 }
database: { url: "${url.toString()}" }
model: { name: fake-model, base_url: "${llm.baseURL}", max_retries: 0 }
access: { operators: [{ name: Maya, telegram: "${MAYA.id}" }] }
telegram: { enabled: true, token: "${fake.token}", api_root: "${fake.apiRoot}", mode: webhook, webhook_secret: ${SECRET} }
shutdown: { timeout: 3s }
`,
      dir,
    );
    const kazma = start(path, join(dir, 'marker'));
    const port = (await waitForLog(kazma, 'http listening')).port as number;
    await waitForLog(kazma, 'kazma ready');
    const set = await fetch(`${fake.apiRoot}/bot${fake.token}/setWebhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `http://127.0.0.1:${port}/telegram/webhook`, secret_token: SECRET }),
    });
    expect(set.status).toBe(200);

    proxy.cut();
    const lost = fake.sendUserMessage({ chatId: MAYA.id, from: MAYA, text: 'said while the database was away' });
    await fake.webhookSettled();
    const refused = fake.deliveries.filter((d) => d.update_id === lost.update_id);
    expect(refused.map((d) => d.status)).toEqual([503]);
    expect(llm.requests).toHaveLength(0);

    proxy.restore();
    // Telegram tries the update it still holds again (here: before the next one), then the new one.
    fake.sendUserMessage({ chatId: MAYA.id, from: MAYA, text: 'and after it came back' });
    await fake.webhookSettled();
    await eventually(
      async () => texts(fake),
      (t) => t.length >= 2 || undefined,
      'both replies',
      60_000,
    );
    // A late duplicate of the first is still dropped.
    expect((await fake.postWebhook(lost)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(texts(fake)).toEqual(['echo: said while the database was away', 'echo: and after it came back']);
    expect(fake.deliveries.filter((d) => d.update_id === lost.update_id).map((d) => d.status)).toEqual([503, 200, 200]);
  });

  it('answers a message once after kill -9 while the model was thinking', async () => {
    const { fake, llm, dir } = await fakes();
    const { path } = writeConfig(
      `
data_dir: ${join(dir, 'data')}
http: { port: 0 }
model: { name: fake-model, base_url: "${llm.baseURL}", max_retries: 0, timeout: 120s }
access: { operators: [{ name: Maya, telegram: "${MAYA.id}" }] }
telegram: { enabled: true, token: "${fake.token}", api_root: "${fake.apiRoot}" }
`,
      dir,
    );
    const first = start(path, join(dir, 'marker'));
    await waitForLog(first, 'kazma ready');
    llm.hangNext(1, 120_000);
    fake.sendUserMessage({ chatId: MAYA.id, from: MAYA, text: 'think hard' });
    await eventually(
      async () => llm.requests.length,
      (n) => n >= 1 || undefined,
      'the model request',
      60_000,
    );
    first.child.kill('SIGKILL');
    await first.exited;

    const second = start(path, join(dir, 'marker'));
    cleanup.push(() => second.child.kill('SIGKILL'));
    await waitForLog(second, 'taking up events a previous run left unfinished');
    await eventually(
      async () => texts(fake),
      (t) => t.length >= 1 || undefined,
      'the answer after the restart',
      60_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(texts(fake)).toEqual(['echo: think hard']);
    expect(llm.requests).toHaveLength(2); // the hung one, then the resumed turn's
  });

  it('ends a message that kills the process every time with one ⚠️ after turns.max_attempts', async () => {
    const { fake, llm, dir } = await fakes();
    const marker = join(dir, 'marker');
    const { path } = writeConfig(
      `
data_dir: ${join(dir, 'data')}
http: { port: 0 }
model: { name: fake-model, base_url: "${llm.baseURL}", max_retries: 0 }
access: { operators: [{ name: Maya, telegram: "${MAYA.id}" }] }
telegram: { enabled: true, token: "${fake.token}", api_root: "${fake.apiRoot}" }
turns: { max_attempts: 2 }
`,
      dir,
    );
    llm.setDefault((body) => {
      const last = body.messages?.at(-1);
      return last?.role === 'tool' ? { text: 'survived?' } : { toolCalls: [{ name: 'crash_now', args: {} }] };
    });
    const crashes = () => (existsSync(marker) ? readFileSync(marker, 'utf8').split('\n').filter(Boolean).length : 0);
    let kazma = start(path, marker);
    await waitForLog(kazma, 'kazma ready');
    fake.sendUserMessage({ chatId: MAYA.id, from: MAYA, text: 'poison' });
    for (let attempt = 1; attempt <= 2; attempt++) {
      expect((await kazma.exited).signal).toBe('SIGKILL');
      expect(crashes()).toBe(attempt);
      kazma = start(path, marker);
    }
    cleanup.push(() => kazma.child.kill('SIGKILL'));
    const warning = await eventually(
      async () => texts(fake),
      (t) => t.find((x) => x?.startsWith('⚠️')),
      'the warning',
      60_000,
    );
    expect(warning).toMatch(/Kazma stopped 2 times while working on it/);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(kazma.child.exitCode).toBeNull(); // still running: the poison did not run a third time
    expect(crashes()).toBe(2);
    expect(texts(fake)).toEqual([warning]);

    // The chat is usable again: the next message is a fresh turn.
    llm.setDefault((body) => ({ text: `fresh: ${String(body.messages?.at(-1)?.content)}` }));
    fake.sendUserMessage({ chatId: MAYA.id, from: MAYA, text: 'hello again' });
    await eventually(
      async () => texts(fake),
      (t) => t.length >= 2 || undefined,
      'the next answer',
      30_000,
    );
    expect(texts(fake)[1]).toBe('fresh: hello again');
    expect(JSON.stringify(llm.requests.at(-1)?.messages)).not.toContain('Kazma stopped');
  });
});

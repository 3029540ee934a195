// A secret never reaches the log: through a real chat turn the model stores one (vault_store) and, once a
// person approves, retrieves it (vault_retrieve), with every log line kept at the most verbose level.
import { randomUUID } from 'node:crypto';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assembleKazma, type RunningKazma } from '../../src/assemble.ts';
import { parseConfig } from '../../src/core/config/index.ts';
import { createLogger } from '../../src/core/log/index.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { freshDatabase, type FreshDatabase } from '../helpers/databases.ts';
import { testQueuePrefix, testRedis, waitForOutbox } from '../helpers/outbox.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';

const SECRET = 'sk-live-never-in-the-log-0123456789';
const MAYA = { platform: 'telegram', id: '42' };

let llm: FakeLlm;
let database: FreshDatabase;
let workspace: string;
let kazma: RunningKazma;
let output = '';
const surface = new RecordingSurface('telegram');
beforeAll(async () => {
  llm = await startFakeLlm();
  database = await freshDatabase('pglite');
  workspace = await realpath(await mkdtemp(join(tmpdir(), 'kazma-vault-logs-')));
  const raw = {
    data_dir: join(workspace, 'data'),
    http: { port: 0 },
    tools: { workspace },
    model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 0 },
    access: { operators: [{ name: 'maya', telegram: '42' }] },
  };
  const loaded = parseConfig(JSON.stringify(raw), {
    env: { PATH: process.env.PATH, KAZMA_VAULT_KEY: 'logs test passphrase' },
    baseDir: workspace,
  });
  const destination = new Writable({
    write: (chunk, _enc, done) => {
      output += String(chunk);
      done();
    },
  });
  const logger = createLogger({ level: 'trace', pretty: false, destination, secrets: loaded.secrets });
  kazma = await assembleKazma({
    loaded,
    logger,
    database,
    redis: testRedis(),
    queuePrefix: testQueuePrefix('vault-logs'),
    surfaces: [surface],
  });
});
afterAll(async () => {
  await kazma?.stop();
  await database?.dispose();
  await llm?.close();
  await rm(workspace, { recursive: true, force: true });
});

async function say(text: string) {
  await kazma.core.pipeline.handle({
    kind: 'message',
    eventId: randomUUID(),
    platform: 'telegram',
    chat: 'telegram:42',
    actor: MAYA,
    text,
  });
  await waitForOutbox(database);
}

describe('secrets and the log', () => {
  it('a stored and retrieved secret never appears in any log line', async () => {
    llm.script({ toolCalls: [{ name: 'vault_store', args: { name: 'openai', value: SECRET } }] });
    await say(`keep my key ${SECRET.slice(0, 4)}… safe`);
    expect(surface.texts().at(-1)).toBe('done: Stored the secret as vault://openai.');

    llm.script({ toolCalls: [{ name: 'vault_retrieve', args: { name: 'openai' } }] });
    await say('what was my key?');
    const card = surface.openCard()?.card;
    expect(card?.title).toBe('Approve vault_retrieve?');
    const approve = card!.buttons.find((b) => b.id.endsWith(':once'))!;
    await kazma.core.pipeline.handle({
      kind: 'action',
      eventId: randomUUID(),
      platform: 'telegram',
      chat: 'telegram:42',
      actor: MAYA,
      actionId: approve.id,
    });
    await waitForOutbox(database);
    // The person asked for it and approved: the value reaches the chat, and only the chat.
    expect(surface.texts().at(-1)).toBe(`done: ${SECRET}`);

    expect(output).toContain('"msg":"vault unlocked"');
    expect(output).not.toContain(SECRET);
  });
});

// A Kazma with the real Telegram adapter against the fake Bot API, in this process: the core on a fresh
// database (its cards delivered by the real BullMQ outbox worker), the adapter built by its factory
// exactly as src/main.ts does, and — in webhook mode — Kazma's HTTP server for Telegram to post to.
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HttpServer } from '../../../src/adapters/http/index.ts';
import { TelegramPlatform } from '../../../src/adapters/telegram/index.ts';
import type { RetryOptions } from '../../../src/adapters/telegram/client.ts';
import { assembleKazma } from '../../../src/assemble.ts';
import { parseConfig } from '../../../src/core/config/index.ts';
import type { KazmaParts } from '../../../src/core/kazma-core.ts';
import { createLogger } from '../../../src/core/log/index.ts';
import {
  startFakeTelegram,
  type FakeTelegram,
  type TapInput,
  type TgUpdate,
  type UserDocumentInput,
  type UserMessageInput,
  type UserPhotoInput,
  type UserVoiceInput,
} from '../../fakes/telegram/index.ts';
import { freshDatabase, type FreshDatabase } from '../../helpers/databases.ts';
import { eventually } from '../../helpers/eventually.ts';
import { testQueuePrefix, testRedis, waitForOutbox } from '../../helpers/outbox.ts';
import { freePort } from '../../helpers/free-port.ts';

/** The people every Telegram test uses: two operators, a member on access.users, a stranger. */
export const MAYA = { id: 42, first_name: 'Maya' };
export const OMAR = { id: 43, first_name: 'Omar' };
export const LINA = { id: 55, first_name: 'Lina' };
export const SAM = { id: 777, first_name: 'Sam' };
export const WEBHOOK_SECRET = 'kazma_test-Secret_42';

export interface HarnessOptions {
  mode?: 'polling' | 'webhook';
  groups?: 'mention' | 'all';
  /** Extra kazma.yaml sections (merged over the defaults). */
  config?: Record<string, unknown>;
  /** Reuse a database (restart tests); the harness then does not dispose it. */
  database?: FreshDatabase;
  /** Reuse a fake (restart tests); the harness then does not close it. */
  fake?: FakeTelegram;
  modelBaseUrl: string;
  answerTimeoutMs?: number;
  typingIntervalMs?: number;
  /** The Bot API client's retries (429s, 5xx, transport errors). */
  retry?: RetryOptions;
}

export interface Harness {
  fake: FakeTelegram;
  core: KazmaParts;
  platform: TelegramPlatform;
  database: FreshDatabase;
  workspace: string;
  /** Kazma's HTTP server (Telegram posts to it in webhook mode). */
  http: HttpServer;
  /** A user writes (through the fake); the update is remembered for settled(). */
  say(input: UserMessageInput): TgUpdate;
  /** A user sends a photo or a document (through the fake). */
  photo(input: UserPhotoInput): TgUpdate;
  document(input: UserDocumentInput): TgUpdate;
  voice(input: UserVoiceInput): TgUpdate;
  /** A user taps a button (through the fake). */
  tap(input: TapInput): TgUpdate;
  /** Any update, as Telegram would deliver it. */
  push(update: Omit<TgUpdate, 'update_id'>): TgUpdate;
  /** Every update produced so far was taken, handled, and its cards and edits delivered. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

export async function startHarness(options: HarnessOptions): Promise<Harness> {
  const fake = options.fake ?? (await startFakeTelegram());
  const root = await realpath(await mkdtemp(join(tmpdir(), 'kazma-tg-')));
  // A workspace apart from data_dir and the skills folder: Kazma refuses one that holds them.
  const workspace = join(root, 'workspace');
  await mkdir(workspace);
  const mode = options.mode ?? 'polling';
  const port = mode === 'webhook' ? await freePort() : 0;
  const raw = {
    data_dir: join(root, 'data'),
    http: { port },
    model: { name: 'fake-model', base_url: options.modelBaseUrl, max_retries: 1 },
    access: {
      operators: [
        { name: 'Maya', telegram: String(MAYA.id) },
        { name: 'Omar', telegram: String(OMAR.id) },
      ],
      users: [`telegram:${LINA.id}`],
    },
    telegram: {
      enabled: true,
      token: fake.token,
      api_root: fake.apiRoot,
      mode,
      groups: options.groups ?? 'mention',
      ...(mode === 'webhook' && {
        webhook_secret: WEBHOOK_SECRET,
        webhook_url: `http://127.0.0.1:${port}/telegram/webhook`,
      }),
    },
    tools: { workspace },
    ...options.config,
  };
  const loaded = parseConfig(JSON.stringify(raw), { env: { PATH: process.env.PATH }, baseDir: root });
  const logger = createLogger({ level: process.env.KAZMA_TEST_LOG ?? 'silent', pretty: false });
  const database = options.database ?? (await freshDatabase('pglite'));
  // Assembled as src/main.ts does, with the adapter's timing options when a test tunes them.
  const tuning = {
    ...(options.typingIntervalMs !== undefined && { typingIntervalMs: options.typingIntervalMs }),
    ...(options.answerTimeoutMs !== undefined && { answerTimeoutMs: options.answerTimeoutMs }),
    ...(options.retry && { retry: options.retry }),
  };
  const kazma = await assembleKazma({
    loaded,
    logger,
    database,
    redis: testRedis(),
    queuePrefix: testQueuePrefix('tg'),
    tuning: { telegram: tuning },
  });
  const { core, http } = kazma;
  const platform = kazma.platforms.find((p): p is TelegramPlatform => p instanceof TelegramPlatform);
  if (!platform) throw new Error('telegram.enabled is true, yet no platform was built');

  let lastPushed = 0;
  const note = (update: TgUpdate): TgUpdate => {
    lastPushed = Math.max(lastPushed, update.update_id);
    return update;
  };
  const settled = async (): Promise<void> => {
    // Updates the fake holds for the bot must have been taken before "idle" means anything.
    await eventually(
      () => platform.inbound.highestUpdateId,
      (taken) => taken >= lastPushed,
      () => `the adapter to take update ${lastPushed}`,
      { timeoutMs: 10_000, intervalMs: 10 },
    );
    for (let round = 0; round < 2; round++) {
      await platform.idle();
      await core.idle();
      await waitForOutbox(database);
    }
  };
  return {
    fake,
    core,
    platform,
    database,
    workspace,
    http,
    settled,
    say: (input) => note(fake.sendUserMessage(input)),
    tap: (input) => note(fake.tapButton(input)),
    photo: (input) => note(fake.sendUserPhoto(input)),
    document: (input) => note(fake.sendUserDocument(input)),
    voice: (input) => note(fake.sendUserVoice(input)),
    push: (update) => note(fake.pushUpdate(update)),
    async close() {
      await kazma.stop();
      if (!options.database) await database.dispose();
      if (!options.fake) await fake.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

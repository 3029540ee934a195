// A Kazma with the real Discord adapter against the fake Discord (REST + gateway), in this process: the
// core on a fresh database (its cards delivered by the real BullMQ outbox worker) and the adapter built
// by its factory exactly as src/main.ts does, unless a test tunes the adapter's timing options.
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DiscordPlatform } from '../../../src/adapters/discord/index.ts';
import { assembleKazma } from '../../../src/assemble.ts';
import { parseConfig } from '../../../src/core/config/index.ts';
import type { KazmaParts } from '../../../src/core/kazma-core.ts';
import { createLogger } from '../../../src/core/log/index.ts';
import {
  startFakeDiscord,
  type ButtonClickInput,
  type FakeDiscord,
  type FakeDiscordOptions,
  type SlashCommandInput,
  type UserMessageInput,
} from '../../fakes/discord/fake-discord.ts';
import { freshDatabase, type FreshDatabase } from '../../helpers/databases.ts';
import { eventually } from '../../helpers/eventually.ts';
import { testQueuePrefix, testRedis, waitForOutbox } from '../../helpers/outbox.ts';

/** The people every Discord test uses: two operators, a member on access.users, a stranger. */
export const MAYA = { id: '2000000000000000001', username: 'maya', global_name: 'Maya' };
export const OMAR = { id: '2000000000000000002', username: 'omar', global_name: 'Omar' };
export const LINA = { id: '2000000000000000003', username: 'lina', global_name: 'Lina' };
export const SAM = { id: '2000000000000000004', username: 'sam', global_name: 'Sam' };
/** Each person's DM channel with the bot (created by the fake on their first message). */
export const DM_OF: Record<string, string> = {
  [MAYA.id]: '3000000000000000001',
  [OMAR.id]: '3000000000000000002',
  [LINA.id]: '3000000000000000003',
  [SAM.id]: '3000000000000000004',
};
/** Channels of the fake's default guild. */
export const GENERAL = '1200000000000000001';
export const RANDOM = '1200000000000000002';
export const THREAD = '1200000000000000011';

export interface HarnessOptions {
  modelBaseUrl: string;
  guildMessages?: 'mention' | 'all';
  /** Extra kazma.yaml sections (merged over the defaults). */
  config?: Record<string, unknown>;
  /**
   * The welcome on a person's first DM (access.welcome). Off by default: these tests count the bot's
   * messages in a DM; the surface contract turns it on and covers it.
   */
  welcome?: boolean;
  /** Reuse a database (restart tests); the harness then does not dispose it. */
  database?: FreshDatabase;
  fake?: FakeDiscord;
  fakeOptions?: FakeDiscordOptions;
  typingIntervalMs?: number;
  /** Shorter waits while an event cannot be recorded (outage tests). */
  recordRetryDelaysMs?: readonly number[];
}

export interface Harness {
  fake: FakeDiscord;
  core: KazmaParts;
  platform: DiscordPlatform;
  database: FreshDatabase;
  workspace: string;
  /** A user writes (through the fake's gateway); the event is remembered for settled(). */
  say(input: UserMessageInput): { id: string; channelId: string };
  click(input: ButtonClickInput): { id: string; token: string };
  slash(input: SlashCommandInput): { id: string; token: string };
  /** Every event produced so far was taken, handled, and its cards and edits delivered. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

export async function startHarness(options: HarnessOptions): Promise<Harness> {
  const fake = options.fake ?? (await startFakeDiscord(options.fakeOptions));
  const root = await realpath(await mkdtemp(join(tmpdir(), 'kazma-dc-')));
  // A workspace apart from data_dir and the skills folder: Kazma refuses one that holds them.
  const workspace = join(root, 'workspace');
  await mkdir(workspace);
  const raw = {
    data_dir: join(root, 'data'),
    http: { port: 0 },
    model: { name: 'fake-model', base_url: options.modelBaseUrl, max_retries: 1 },
    access: {
      welcome: options.welcome ?? false,
      operators: [
        { name: 'Maya', discord: MAYA.id },
        { name: 'Omar', discord: OMAR.id },
      ],
      users: [`discord:${LINA.id}`],
    },
    discord: {
      enabled: true,
      token: fake.token,
      api: fake.api,
      application_id: fake.applicationId,
      guild_messages: options.guildMessages ?? 'mention',
    },
    tools: { workspace },
    ...options.config,
  };
  const loaded = parseConfig(JSON.stringify(raw), { env: { PATH: process.env.PATH }, baseDir: root });
  const logger = createLogger({ level: process.env.KAZMA_TEST_LOG ?? 'silent', pretty: false });
  const database = options.database ?? (await freshDatabase('pglite'));
  const tuning = {
    ...(options.typingIntervalMs !== undefined && { typingIntervalMs: options.typingIntervalMs }),
    ...(options.recordRetryDelaysMs !== undefined && { recordRetryDelaysMs: options.recordRetryDelaysMs }),
  };
  const kazma = await assembleKazma({
    loaded,
    logger,
    database,
    redis: testRedis(),
    queuePrefix: testQueuePrefix('dc'),
    tuning: { discord: tuning },
  });
  const { core } = kazma;
  const platform = kazma.platforms.find((p): p is DiscordPlatform => p instanceof DiscordPlatform);
  if (!platform) throw new Error('discord.enabled is true, yet no platform was built');

  const pushed: string[] = [];
  const note = <T extends { id: string }>(event: T): T => {
    pushed.push(event.id);
    return event;
  };
  const settled = async (): Promise<void> => {
    // Events the fake dispatched must have reached the adapter before "idle" means anything.
    await eventually(
      () => pushed.filter((id) => !platform.inbound.hasTaken(id)),
      (untaken) => untaken.length === 0,
      'the adapter to take every event the fake dispatched (the last read lists those it had not)',
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
    settled,
    say: (input) => note(fake.sendUserMessage(input)),
    click: (input) => note(fake.clickButton(input)),
    slash: (input) => note(fake.slashCommand(input)),
    async close() {
      await kazma.stop();
      if (!options.database) await database.dispose();
      if (!options.fake) await fake.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

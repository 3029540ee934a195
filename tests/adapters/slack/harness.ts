// A Kazma with the real Slack adapter against the fake Slack, in this process: the core on a fresh
// database (its cards delivered by the real BullMQ outbox worker), Kazma's HTTP server with the Request
// URL, and the adapter built by its factory exactly as src/main.ts does.
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HttpServer } from '../../../src/adapters/http/index.ts';
import { SlackPlatform, type SlackTuning } from '../../../src/adapters/slack/index.ts';
import { assembleKazma } from '../../../src/assemble.ts';
import { parseConfig } from '../../../src/core/config/index.ts';
import type { KazmaParts } from '../../../src/core/kazma-core.ts';
import { createLogger } from '../../../src/core/log/index.ts';
import { startFakeSlack, type FakeSlack } from '../../fakes/slack/index.ts';
import { freshDatabase, type FreshDatabase } from '../../helpers/databases.ts';
import { testQueuePrefix, testRedis, waitForOutbox } from '../../helpers/outbox.ts';

/** The people every Slack test uses: two operators, a member on access.users, a stranger. */
export const MAYA = { id: 'U0MAYA', name: 'Maya' };
export const OMAR = { id: 'U0OMAR', name: 'Omar' };
export const LINA = { id: 'U0LINA', name: 'Lina' };
export const SAM = { id: 'U0SAM', name: 'Sam' };

/** A person's DM channel with the bot: `U0MAYA` → `D0MAYA`. */
export const dmOf = (user: { id: string }): string => `D${user.id.slice(1)}`;

export interface SlackHarnessOptions {
  modelBaseUrl: string;
  /** Extra kazma.yaml sections (merged over the defaults). */
  config?: Record<string, unknown>;
  /**
   * The welcome on a person's first DM (access.welcome). Off by default: these tests count the bot's
   * messages in a DM; the surface contract turns it on and covers it.
   */
  welcome?: boolean;
  /** Reuse a database (outage tests); the harness then does not dispose it. */
  database?: FreshDatabase;
  /** Reuse a fake (restart tests); the harness then does not close it. */
  fake?: FakeSlack;
  /** Adapter options a test tunes (retries, ack timeout); else the factory builds it as main.ts does. */
  tuning?: SlackTuning;
}

export interface SlackHarness {
  fake: FakeSlack;
  core: KazmaParts;
  platform: SlackPlatform;
  database: FreshDatabase;
  http: HttpServer;
  workspace: string;
  /** Kazma's Request URL: where the fake's signer posts. */
  url: string;
  /** Every request delivered so far was handled, and its cards and edits delivered. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

export async function startSlackHarness(options: SlackHarnessOptions): Promise<SlackHarness> {
  const fake = options.fake ?? (await startFakeSlack());
  const root = await realpath(await mkdtemp(join(tmpdir(), 'kazma-slack-')));
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
        { name: MAYA.name, slack: MAYA.id },
        { name: OMAR.name, slack: OMAR.id },
      ],
      users: [`slack:${LINA.id}`],
    },
    slack: { enabled: true, token: fake.botToken, signing_secret: fake.signingSecret, api_url: fake.apiUrl },
    tools: { workspace },
    ...options.config,
  };
  const loaded = parseConfig(JSON.stringify(raw), { env: { PATH: process.env.PATH }, baseDir: root });
  const logger = createLogger({ level: process.env.KAZMA_TEST_LOG ?? 'silent', pretty: false });
  const database = options.database ?? (await freshDatabase('pglite'));
  const kazma = await assembleKazma({
    loaded,
    logger,
    database,
    redis: testRedis(),
    queuePrefix: testQueuePrefix('sl'),
    ...(options.tuning && { tuning: { slack: options.tuning } }),
  });
  const { core, http } = kazma;
  const platform = kazma.platforms.find((p): p is SlackPlatform => p instanceof SlackPlatform);
  if (!platform) throw new Error('slack.enabled is true, yet no platform was built');
  const port = http.port;

  const settled = async (): Promise<void> => {
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
    http,
    workspace,
    settled,
    url: `http://127.0.0.1:${port}/slack/events`,
    async close() {
      await kazma.stop();
      if (!options.database) await database.dispose();
      if (!options.fake) await fake.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

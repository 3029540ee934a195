// Kazma assembled in this process exactly as `kazma start` assembles it (src/assemble.ts), on a fresh
// database, the test Redis with a queue prefix of its own, and an HTTP port picked by the OS. For tests
// that enable several platforms at once against their fakes.
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assembleKazma, type RunningKazma } from '../../src/assemble.ts';
import type { Surface } from '../../src/core/surface/index.ts';
import type { Clock } from '../../src/core/clock.ts';
import { parseConfig } from '../../src/core/config/index.ts';
import { createLogger } from '../../src/core/log/index.ts';
import type { ToolDefinition } from '../../src/core/tools/define.ts';
import type { PlatformTuning, RunningPlatform } from '../../src/platforms.ts';
import { afterEach } from 'vitest';
import { freshDatabase, type Backend, type FreshDatabase } from './databases.ts';
import { testQueuePrefix, testRedis, waitForOutbox } from './outbox.ts';

export interface Assembled {
  kazma: RunningKazma;
  database: FreshDatabase;
  workspace: string;
  /** The running platform of a class (`platform(TelegramPlatform)`). */
  platform<T extends RunningPlatform>(kind: abstract new (...args: never[]) => T): T;
  /** Every event taken so far is handled and every card, edit and reply delivered. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/** `config` is kazma.yaml as an object; data_dir, http.port 0 and tools.workspace are filled in. */
export async function startAssembled(
  config: Record<string, unknown>,
  options: {
    tools?: ToolDefinition[];
    tuning?: PlatformTuning;
    database?: FreshDatabase;
    clock?: Clock;
    queuePrefix?: string;
    env?: Record<string, string>;
    surfaces?: Surface[];
  } = {},
): Promise<Assembled> {
  const workspace = await realpath(await mkdtemp(join(tmpdir(), 'kazma-asm-')));
  // http.port stays 0 when a test configures other http keys: the default port would collide across files.
  const raw = {
    data_dir: join(workspace, 'data'),
    tools: { workspace },
    ...config,
    http: { port: 0, ...(config.http as Record<string, unknown> | undefined) },
  };
  const loaded = parseConfig(JSON.stringify(raw), {
    env: { PATH: process.env.PATH, ...options.env },
    baseDir: workspace,
  });
  const logger = createLogger({ level: process.env.KAZMA_TEST_LOG ?? 'silent', pretty: false });
  const database = options.database ?? (await freshDatabase('pglite'));
  const kazma = await assembleKazma({
    loaded,
    logger,
    database,
    redis: testRedis(),
    queuePrefix: options.queuePrefix ?? testQueuePrefix('asm'),
    ...(options.tools && { tools: options.tools }),
    ...(options.tuning && { tuning: options.tuning }),
    ...(options.clock && { clock: options.clock }),
    // Attached before start-up recovery, so what a restart delivers at start reaches them.
    ...(options.surfaces && { surfaces: options.surfaces }),
  });
  const idle = (p: RunningPlatform) =>
    'idle' in p && typeof p.idle === 'function' ? (p.idle as () => Promise<void>)() : Promise.resolve();
  return {
    kazma,
    database,
    workspace,
    platform: (kind) => {
      const found = kazma.platforms.find((p) => p instanceof kind);
      if (!found) throw new Error(`no ${kind.name} is running`);
      return found as never;
    },
    async settled() {
      for (let round = 0; round < 2; round++) {
        await Promise.all(kazma.platforms.map(idle));
        await kazma.core.idle();
        await waitForOutbox(database);
      }
    },
    async close() {
      await kazma.stop();
      if (!options.database) await database.dispose();
      await rm(workspace, { recursive: true, force: true });
    },
  };
}

/**
 * Kazmas that share one fresh database within a test (a restart is `stop` then `start`); after each test
 * every one still running is closed and the database dropped. Call it at the top of a test file.
 */
export function kazmasOnOneDatabase(backend: Backend = 'pglite') {
  const running: Assembled[] = [];
  let database: FreshDatabase | undefined;
  afterEach(async () => {
    for (const k of running.splice(0)) await k.close();
    await database?.dispose();
    database = undefined;
  });
  return {
    async start(
      config: Record<string, unknown>,
      options: Omit<Parameters<typeof startAssembled>[1] & object, 'database'> = {},
    ): Promise<Assembled> {
      database ??= await freshDatabase(backend);
      const k = await startAssembled(config, { ...options, database });
      running.push(k);
      return k;
    },
    async stop(k: Assembled): Promise<void> {
      running.splice(running.indexOf(k), 1);
      await k.close();
    },
  };
}

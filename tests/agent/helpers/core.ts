// Starts the real core (createKazmaCore) on a fresh database with the model pointed at the fake LLM,
// a RecordingSurface attached, and helpers to send messages and tap approval buttons as a person would.
import { randomUUID } from 'node:crypto';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Actor, ChatRef } from '../../../src/core/surface/index.ts';
import type { PipelineOutcome } from '../../../src/core/chat/index.ts';
import { parseConfig } from '../../../src/core/config/index.ts';
import { assembleKazma } from '../../../src/assemble.ts';
import type { KazmaParts } from '../../../src/core/kazma-core.ts';
import { testQueuePrefix, testRedis, waitForOutbox } from '../../helpers/outbox.ts';
import { createLogger } from '../../../src/core/log/index.ts';
import type { ToolDefinition } from '../../../src/core/tools/define.ts';
import { freshDatabase, type Backend, type FreshDatabase } from '../../helpers/databases.ts';
import { RecordingSurface } from '../../helpers/recording-surface.ts';

export const OPERATOR: Actor = { platform: 'telegram', id: '42' };
export const CHAT: ChatRef = 'telegram:42';

export interface TestCore {
  core: KazmaParts;
  surface: RecordingSurface;
  database: FreshDatabase;
  workspace: string;
  /** Sends a message (or a command) as `actor` (default the operator) and waits for its turn. */
  say(text: string, options?: { actor?: Actor; chat?: ChatRef; eventId?: string }): Promise<PipelineOutcome>;
  /** Taps a button of the open card: 'once' | 'always' | 'deny'. */
  tap(
    decision: 'once' | 'always' | 'deny',
    options?: { actor?: Actor; card?: { buttons: Array<{ id: string }> } },
  ): Promise<PipelineOutcome>;
  /** Resolves when every queued card and edit has been delivered. */
  delivered(): Promise<void>;
  close(): Promise<void>;
}

export interface TestCoreOptions {
  /** The `model` section; default a model at `baseURL` with max_retries 1. */
  model?: Record<string, unknown>;
  baseURL?: string;
  /** Extra kazma.yaml sections, merged over the defaults. */
  config?: Record<string, unknown>;
  tools?: ToolDefinition[];
  backend?: Backend;
  database?: FreshDatabase;
  surface?: RecordingSurface;
}

export async function startTestCore(options: TestCoreOptions): Promise<TestCore> {
  const workspace = await realpath(await mkdtemp(join(tmpdir(), 'kazma-core-')));
  const model = options.model ?? { name: 'fake-model', base_url: options.baseURL, max_retries: 1 };
  const raw = {
    data_dir: join(workspace, 'data'),
    model,
    access: { operators: [{ name: 'maya', telegram: '42', console: 'maya' }] },
    tools: { workspace },
    ...options.config,
    // Port 0 also when a test configures `http` (its api_token): two test files on the default port
    // collide when they run at once (EADDRINUSE 8787).
    http: { port: 0, ...(options.config?.http as Record<string, unknown> | undefined) },
  };
  const loaded = parseConfig(JSON.stringify(raw), { env: { PATH: process.env.PATH }, baseDir: workspace });
  const database = options.database ?? (await freshDatabase(options.backend ?? 'pglite'));
  const logger = createLogger({ level: process.env.KAZMA_TEST_LOG ?? 'silent' });
  // A platform outlives Kazma's restarts: a second core may be given the first one's surface.
  const surface = options.surface ?? new RecordingSurface('telegram');
  const kazma = await assembleKazma({
    loaded,
    logger,
    database,
    redis: testRedis(),
    queuePrefix: testQueuePrefix(),
    surfaces: [surface],
    ...(options.tools && { tools: options.tools }),
  });
  const { core } = kazma;
  /** Cards and edits go out through the outbox worker; a step is done when nothing is left to deliver. */
  const delivered = async <T>(result: T): Promise<T> => {
    await waitForOutbox(database);
    return result;
  };
  const base = (actor: Actor | undefined, chat: ChatRef | undefined, eventId: string | undefined) => ({
    eventId: eventId ?? randomUUID(),
    platform: 'telegram',
    chat: chat ?? CHAT,
    actor: actor ?? OPERATOR,
  });
  return {
    core,
    surface,
    database,
    workspace,
    say: async (text, o = {}) =>
      delivered(await core.pipeline.handle({ ...base(o.actor, o.chat, o.eventId), kind: 'message', text })),
    tap: (decision, o = {}) => {
      const card = o.card ?? surface.openCard()?.card;
      const button = card?.buttons.find((b) => b.id.endsWith(`:${decision}`));
      if (!button) throw new Error(`no open card with a ${decision} button`);
      return core.pipeline
        .handle({ ...base(o.actor, undefined, undefined), kind: 'action', actionId: button.id })
        .then(delivered);
    },
    delivered: () => delivered(undefined),
    close: async () => {
      await kazma.stop();
      if (!options.database) await database.dispose();
      await rm(workspace, { recursive: true, force: true });
    },
  };
}

/** The text of every message of a chat request, by role, e.g. `['user:hi', 'assistant:echo: hi']`. */
export function transcript(body: { messages?: Array<{ role: string; content?: unknown }> }): string[] {
  return (body.messages ?? [])
    .filter((m) => m.role !== 'system')
    .map((m) => `${m.role}:${typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '')}`);
}

import { join } from 'node:path';
import { LiveReplies } from '../streaming/index.ts';
import { setMaxListeners } from 'node:events';
import type { ApprovalBroker } from '../approvals/index.ts';
import type { SurfaceRegistry } from '../surface/index.ts';
import type { Clock } from '../clock.ts';
import type { ChatCommand, StatusSection } from '../commands/index.ts';
import type { LoadedConfig } from '../config/index.ts';
import { KeptDownloads, MediaReader, pruneKeptFiles, TranscriptStore, transcriptionSettings } from '../media/index.ts';
import type { Database } from '../db/index.ts';
import { EffectJournal } from '../effects/index.ts';
import type { SweepStep } from '../jobs/index.ts';
import type { Logger } from '../log/index.ts';
import { DraftRecords, type ReplyOutbox } from '../outbox/index.ts';
import type { ToolsModule } from '../tools/module.ts';
import { ModelChains, modelSettingsFromConfig } from './model/chain-provider.ts';
import { TranscriptArchive } from './graph/archive.ts';
import { CheckpointRetention } from './checkpoint/checkpoint-retention.ts';
import { CHECKPOINTER_SCHEMA, createCheckpointer } from './checkpoint/checkpointer.ts';
import { agentStatus, compactCommand, newCommand, stopCommand } from './commands.ts';
import { Compactor } from './runner/compact.ts';
import { buildAgentGraph } from './graph/graph.ts';
import { defaultSystemPrompt } from './graph/model-node.ts';
import { type ThreadLeases, ThreadStore } from '../turns/index.ts';
import { RunningTurns } from './runner/running-turns.ts';
import { RemoteStops } from './runner/remote-stops.ts';
import { TurnRunner } from './runner/turn-runner.ts';
import type { RecallFn } from './graph/recall-step.ts';
import type { Meter } from '../metrics/index.ts';

/** What {@link createAgent} needs. */
export interface AgentDeps {
  loaded: LoadedConfig;
  /** This process's name in lease columns (thread leases). */
  processName: string;
  database: Database;
  /** The process's one ThreadLeases (built by assembleKazma, shared with the chat module). */
  leases: ThreadLeases;
  tools: ToolsModule;
  broker: ApprovalBroker;
  surfaces: SurfaceRegistry;
  replies: ReplyOutbox;
  clock: Clock;
  logger: Logger;
  /** Told at each model and tool call of a run (the run supervisor's progress stamps). */
  progress?: (threadId: string) => void;
  /** What a lost checkpointer connection says (a database outage is said once); default a warning. */
  onDbError?: (error: unknown) => void;
  /** Lines added to the system prompt, read per model call (the Agent Skills list). */
  promptLines?: () => readonly string[];
  /** What memory recalls before each turn (core/memory); absent: nothing is recalled. */
  recall?: RecallFn;
  /** The process's figures: drives, model calls, tool calls and questions asked are counted. */
  meter?: Meter;
  /** What operators chose from chat (`/config prompt`, `/config model`), read per model call from memory. */
  preferences?: ChatPreferencesPort;
}

/** The house instructions and the model chosen for a chat (core/settings keeps them). */
export interface ChatPreferencesPort {
  instructions(chat: string): readonly string[];
  model(chat: string): string | undefined;
}

/** The agent module: the runner that drives turns, its threads, its commands and /status section. */
export interface AgentModule {
  runner: TurnRunner;
  threads: ThreadStore;
  chains: ModelChains;
  commands: ChatCommand[];
  status: StatusSection;
  /**
   * Deletes checkpoints older than each thread's newest and what only they reach (checkpoint-retention.ts),
   * and voice transcripts and the copies of files sent and received (data_dir/files) kept past
   * `media.retention`.
   */
  sweep: SweepStep;
  /** Aborts running turns (shutdown past its timeout); they are taken up at the next start. */
  abort(): void;
  /** Closes the checkpointer's connections. */
  close(): Promise<void>;
}

/**
 * Builds the model chain (every configured model now, so a broken fallback fails at start), the durable
 * checkpointer (fails at start when its tables are missing), the graph and the turn runner.
 */
export async function createAgent({
  loaded,
  processName,
  database,
  leases,
  tools,
  broker,
  surfaces,
  replies,
  clock,
  logger,
  progress,
  onDbError,
  promptLines,
  recall,
  meter,
  preferences,
}: AgentDeps): Promise<AgentModule> {
  const { config } = loaded;
  const chains = new ModelChains({
    settings: modelSettingsFromConfig(config.model),
    registry: tools.registry,
    ...(loaded.sources && { sources: loaded.sources }),
    ...(meter && { meter }),
    ...(preferences && { preferred: (chat: string) => preferences.model(chat) }),
  });
  chains.current();
  if (chains.gap === 'name') logger.warn('no model is configured: every turn will answer with how to configure one');
  if (chains.gap === 'key')
    logger.warn(`the model ${chains.labels()[0]} has no API key: every turn will answer with how to set one`);
  const checkpointer = await createCheckpointer(database, {
    onPoolError: onDbError ?? ((err) => logger.warn({ err }, 'checkpointer connection lost')),
  });
  const archive = new TranscriptArchive(database.db);
  const transcripts = new TranscriptStore(database.db);
  const filesDir = join(config.data_dir, 'files');
  const downloads = new KeptDownloads(database.db, filesDir, clock);
  const journal = new EffectJournal(database.db);
  const graph = buildAgentGraph({
    chains,
    systemPrompt: defaultSystemPrompt(
      config.time.zone,
      clock,
      promptLines,
      preferences && ((chat) => preferences.instructions(chat)),
    ),
    registry: tools.registry,
    toolContext: tools.toolContext,
    canAsk: (chat) => !chat.startsWith('thread:') || config.approvals.channels.length > 0,
    isGranted: (call) =>
      broker.isGranted({ ...call, chat: call.chat as Parameters<ApprovalBroker['isGranted']>[0]['chat'] }),
    journal,
    checkpointer: checkpointer.saver,
    ...(progress && { progress }),
    ...(recall && { recall }),
    ...(meter && { meter }),
    context: { maxTokens: config.agent.context.max_tokens, archive },
  });
  const threads = new ThreadStore(database.db, { solo: database.kind === 'pglite' });
  const aborter = new AbortController();
  // Each running turn follows this signal with one listener, removed when it ends; many run at once on a worker.
  setMaxListeners(1_000, aborter.signal);
  const running = new RunningTurns();
  const runner = new TurnRunner({
    ...(meter && { meter }),
    graph,
    threads,
    broker,
    surfaces,
    replies,
    logger,
    signal: aborter.signal,
    leases,
    reads: checkpointer.saver.reads,
    live: new LiveReplies({
      streaming: config.streaming,
      surfaces,
      secrets: loaded.secrets,
      drafts: new DraftRecords(database.db),
      ...(logger && { logger }),
    }),
    media: new MediaReader({
      surfaces,
      settings: {
        maxBytes: config.media.max_bytes,
        vision: config.model.vision,
        documents: {
          maxChars: config.media.max_document_chars,
          timeoutMs: config.media.parse_timeout,
          memoryMb: Math.floor(config.media.parse_memory / 1024 ** 2),
        },
        transcription: transcriptionSettings(config),
      },
      transcripts,
      downloads,
    }),
    heartbeatMs: Math.max(500, Math.floor(config.approvals.lease_ttl / 3)),
    running,
    journal,
  });
  // With several processes on PostgreSQL, /stop reaches a turn another one runs (remote-stops.ts).
  const remote =
    database.stops &&
    new RemoteStops({ db: database.db, signal: database.stops, me: processName, running, graph, logger });
  remote?.listen();
  const compactor = new Compactor({ graph, chains, archive, leases });
  const retention = new CheckpointRetention({
    pool: checkpointer.pool,
    schema: CHECKPOINTER_SCHEMA,
    leases,
    owner: processName,
  });
  const port = {
    startNewThread: (chat: Parameters<TurnRunner['newThread']>[0]) => runner.newThread(chat),
    currentThread: (chat: Parameters<ThreadStore['current']>[0]) => threads.current(chat),
    models: (chat: string) => (chains.configured ? chains.labels(chat) : []),
    instructions: (chat: string) => preferences?.instructions(chat) ?? [],
    compact: async (chat: Parameters<ThreadStore['current']>[0]) => compactor.compact(await threads.current(chat)),
    stop: async (chat: Parameters<ThreadStore['current']>[0], may: Parameters<RunningTurns['stop']>[1]) => {
      const thread = await threads.current(chat);
      const here = running.stop(thread, may);
      return here === 'nothing' && remote ? remote.stop(thread, may) : here;
    },
  };
  return {
    runner,
    threads,
    chains,
    commands: [newCommand(port), compactCommand(port), stopCommand(port)],
    status: agentStatus(port),
    sweep: {
      name: 'checkpoints and transcripts',
      run: async () => {
        await retention.run();
        const before = new Date(clock.now().getTime() - config.media.retention);
        await transcripts.prune(before);
        await downloads.prune(before);
        await pruneKeptFiles(filesDir, before);
      },
    },
    abort: () => aborter.abort(),
    close: async () => {
      await remote?.close();
      await checkpointer.close();
    },
  };
}

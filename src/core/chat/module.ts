import { type ThreadLeases, ChatLeaseStatements } from '../turns/index.ts';
import type { TurnRunner } from '../agent/index.ts';
import type { CommandRegistry } from '../commands/index.ts';
import type { LoadedConfig } from '../config/index.ts';
import type { Db } from '../db/index.ts';
import type { ActionRouter } from '../decisions/index.ts';
import type { Clock } from '../clock.ts';
import { CommandJournal } from '../effects/index.ts';
import type { SweepStep } from '../jobs/index.ts';
import type { ReplyOutbox } from '../outbox/index.ts';
import type { Logger } from '../log/index.ts';
import type { ChatQueues } from './queue/chat-queue.ts';
import type { AccessPolicy } from './intake/access.ts';
import { Inbox } from './inbox/inbox.ts';
import { InboundPipeline } from './intake/pipeline.ts';
import type { PipelineOptions } from './intake/pipeline-types.ts';
import type { SurfaceRegistry } from '../surface/index.ts';

/** What {@link createChat} needs. */
export interface ChatDeps {
  loaded: LoadedConfig;
  /** This process's name in lease columns (inbox rows, thread leases). */
  processName: string;
  db: Db;
  /**
   * The process's one ThreadLeases (built by assembleKazma, shared with the agent). A chat's lease is a
   * row keyed `inbox:<chat>` taken by its statements; on a solo database (PGlite) it lives in its memory.
   */
  threadLeases: ThreadLeases;
  access: AccessPolicy;
  commands: CommandRegistry;
  runner: Pick<TurnRunner, 'message' | 'endTurn'>;
  actions: ActionRouter;
  surfaces: SurfaceRegistry;
  /** Where commands' answers in the chat go (keyed by the event, so sent once). */
  replies: ReplyOutbox;
  queues: ChatQueues;
  clock: Clock;
  logger: Logger;
  /** The run supervisor's progress stamps, told when a row is taken (taking it stamps `progress_at`). */
  progress?: { taken(chat: string): void };
  /** Told when an unordered event's work ran, before its row ends (see PipelineOptions.onWorked). */
  onWorked?: PipelineOptions['onWorked'];
  /** DM pairing's answer to a stranger (core/pairing); absent: strangers are refused. */
  pairing?: PipelineOptions['pairing'];
  /** The welcome on a person's first direct message (core/commands FirstWelcome); absent: none. */
  welcome?: PipelineOptions['welcome'];
}

/** The chat module: the one inbound path and its durable inbox. */
export interface ChatModule {
  pipeline: InboundPipeline;
  inbox: Inbox;
  /** Takes up events other processes left unfinished (lease lapsed), and prunes old ones. */
  sweep: SweepStep;
}

/** Builds the inbox (named for this process, heart-beating) and the pipeline in front of it. */
export function createChat({
  loaded,
  processName,
  db,
  threadLeases,
  access,
  commands,
  runner,
  actions,
  surfaces,
  replies,
  queues,
  clock,
  logger,
  progress,
  onWorked,
  pairing,
  welcome,
}: ChatDeps): ChatModule {
  const { turns, inbox: inboxConfig } = loaded.config;
  // Each process names itself in the inbox, so a lease it stops renewing can be told from one it holds.
  const inbox = new Inbox({
    db,
    owner: processName,
    ...(progress && { onTaken: (chat: string) => progress.taken(chat) }),
  });
  inbox.startHeartbeat(Math.max(200, Math.floor(turns.lease_ttl / 3)));
  // A chat's messages are taken in order by whichever process holds its lease: the thread_leases
  // statements, keyed `inbox:<chat>`, with the chat's listing folded in (on PGlite, with one process,
  // held in memory).
  const leases = threadLeases.solo
    ? threadLeases
    : new ChatLeaseStatements({ db, leases: threadLeases, ttlMs: turns.lease_ttl });
  // State-changing commands record their change here, once per inbound event (see CommandJournal).
  const journal = new CommandJournal(db);
  const pipeline = new InboundPipeline({
    inbox,
    journal,
    replies,
    access,
    commands,
    runner,
    actions,
    surfaces,
    queues,
    logger,
    maxAttempts: turns.max_attempts,
    leases,
    staleAfterMs: turns.lease_ttl,
    clock,
    ...(onWorked && { onWorked }),
    ...(pairing && { pairing }),
    ...(welcome && { welcome }),
  });
  return {
    pipeline,
    inbox,
    sweep: {
      name: 'inbox',
      run: async () => {
        await pipeline.recover({ staleBefore: new Date(clock.now().getTime() - turns.lease_ttl) });
        const before = new Date(clock.now().getTime() - inboxConfig.retention);
        await inbox.prune(before);
        // A command's journal row outlives its inbox row: only then can no redelivery take the event up again.
        await journal.prune(before);
      },
    },
  };
}

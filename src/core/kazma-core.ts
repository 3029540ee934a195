// The core as the rest of the program sees it. It is assembled from each module's factory by
// src/assemble.ts; these types name the two views of the result.
import type { ThreadStore } from './turns/index.ts';
import type { TurnRunner } from './agent/index.ts';
import type { ApprovalDecider, ApprovalBroker, ApprovalReconciler } from './approvals/index.ts';
import type { Questions, ActionRouter } from './decisions/index.ts';
import type { RunSupervisor } from './runs/index.ts';
import type { Schedules } from './schedules/index.ts';
import type { Tasks } from './tasks/index.ts';
import type { AccessPolicy, ChatQueues, Inbox, InboundPipeline } from './chat/index.ts';
import type { Surface, SurfaceRegistry } from './surface/index.ts';
import type { CommandRegistry } from './commands/index.ts';
import type { JobOutboxDispatcher, ReplyOutbox } from './outbox/index.ts';
import type { ToolRegistry } from './tools/index.ts';

/** What the edges (platform adapters, the console) use: hand events in, plug a surface in, list commands. */
export interface KazmaCore {
  readonly pipeline: InboundPipeline;
  /** Plugs a surface in for its platform; returns a function that detaches it. */
  attachSurface(surface: Surface): () => void;
  readonly commands: Pick<CommandRegistry, 'list'>;
}

/** Every module's part, for the composition root, the CLI and in-process tests. */
export interface KazmaParts extends KazmaCore {
  readonly commands: CommandRegistry;
  readonly inbox: Inbox;
  readonly queues: ChatQueues;
  readonly access: AccessPolicy;
  readonly actions: ActionRouter;
  readonly surfaces: SurfaceRegistry;
  readonly replies: ReplyOutbox;
  readonly outbox: JobOutboxDispatcher;
  readonly tools: ToolRegistry;
  readonly approvals: ApprovalBroker;
  readonly decider: ApprovalDecider;
  /** Questions with buttons other than approvals (incident and clarify cards). */
  readonly questions: Questions;
  /** Background (swarm) tasks. */
  readonly tasks: Tasks;
  /** Reminders and cron jobs. */
  readonly schedules: Schedules;
  readonly reconciler: ApprovalReconciler;
  /** Watches long work by its progress and opens incidents (a step of the sweep). */
  readonly supervisor: RunSupervisor;
  readonly runner: TurnRunner;
  readonly threads: ThreadStore;
  /** Resolves when no turn is queued or running and every card or edit for an attached surface is delivered. */
  idle(): Promise<void>;
  /**
   * Stops intake, waits for running turns up to `timeoutMs` (then stops them for the next start), closes the
   * checkpointer.
   */
  stop(timeoutMs: number): Promise<void>;
}

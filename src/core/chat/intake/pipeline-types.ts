// The inbound pipeline's contract: what it returns and the parts it is built from (pipeline.ts).
import type { AheadLease, LeaseHandOff, ChatLeases } from '../../turns/index.ts';
import type { TurnRunner } from '../../agent/index.ts';
import type { ReplyOutbox, SentHandOff } from '../../outbox/index.ts';
import type { CommandJournal } from '../../effects/index.ts';
import type { CommandRegistry } from '../../commands/index.ts';
import type { ActionRouter } from '../../decisions/index.ts';
import type { Logger } from '../../log/index.ts';
import type { Clock } from '../../clock.ts';
import type { AccessPolicy, Role } from './access.ts';
import type { ChatQueues } from '../queue/chat-queue.ts';
import type { Inbox } from '../inbox/inbox.ts';
import type { RefusalLimiter } from './refusals.ts';
import type { InboundEvent, SurfaceRegistry } from '../../surface/index.ts';

/** What `InboundPipeline.handle` did with an event. */
export type PipelineOutcome = 'handled' | 'own' | 'duplicate' | 'refused' | 'stopping';

/**
 * What `InboundPipeline.accept` did at once. `stopping` means the event was NOT recorded: the
 * adapter must tell the platform to deliver it again (a 5xx, a poll offset kept). Every other status
 * means the event is safe to acknowledge; `done` resolves when its work has finished.
 */
export interface Accepted {
  status: 'accepted' | 'own' | 'duplicate' | 'refused' | 'stopping';
  done: Promise<PipelineOutcome>;
}

/** The parts the pipeline routes between; all built by the composition root. */
export interface PipelineOptions {
  inbox: Inbox;
  access: AccessPolicy;
  commands: CommandRegistry;
  runner: Pick<TurnRunner, 'message' | 'endTurn'>;
  /** Reads a tapped button id (each card's module registered its prefix). */
  actions: Pick<ActionRouter, 'route'>;
  surfaces: SurfaceRegistry;
  /** Where a command's answers in the chat go: outbox rows keyed by the event, sent once. */
  replies: Pick<ReplyOutbox, 'deliver'>;
  /** Where a state-changing command records its change, once per event (`ctx.once`). */
  journal: Pick<CommandJournal, 'once'>;
  queues: ChatQueues;
  /** `turns.max_attempts`: an event whose work began this many times without ending is given up. Default 3. */
  maxAttempts?: number;
  /** When a refused sender is told so; default once per person per chat per day. */
  /**
   * What a refused event's sender is told instead of the refusal (DM pairing's code): `{ tell }`, `{}` for
   * nothing, undefined when it is no pairing case. Absent: pairing is off.
   */
  pairing?: (event: InboundEvent) => Promise<{ tell?: string } | undefined>;
  /**
   * The welcome a person's first direct message is answered with first (core/commands FirstWelcome), or
   * undefined. Asked once per event, when it is first recorded. Absent: no welcome.
   */
  welcome?: (event: InboundEvent, role: Role) => Promise<string | undefined>;
  refusals?: RefusalLimiter;
  /**
   * Each chat's lease, shared by every process on the database (ThreadLeases): whoever holds it takes the
   * chat's messages in the inbox's order. Default: this process only (the embedded database).
   */
  leases?: ChatLeases;
  /**
   * `turns.lease_ttl`: a held chat lease lasts this long unless renewed, and a running row untouched this long is a
   * stopped process's. Default 15 s.
   */
  staleAfterMs?: number;
  /** Where "`staleAfterMs` ago" is read from; default systemClock. */
  clock?: Clock;
  logger?: Logger;
  /**
   * Told when the work of an event that needs no chat order (most commands) has run and before its inbox
   * row ends: crash tests stop a process between the two (assembleKazma's `onEventWorked`).
   */
  onWorked?: (event: InboundEvent) => void | Promise<void>;
}

export interface Work {
  /** The queue it waits in (a chat's turns run one at a time); none for commands that need no order. */
  queue?: string;
  /**
   * `handOff`: takes over letting the turn's thread lease go; `sentHandOff`: takes over recording its
   * replies as sent (a chat's turn: both written by the statement that ends its inbox row, ChatTurns);
   * `ahead`: the lease of the chat's current thread taken with the row, for a turn to claim; `retaken`: the
   * row's work began before (a process stopped in it).
   */
  run: (options?: {
    handOff?: LeaseHandOff;
    sentHandOff?: SentHandOff;
    ahead?: AheadLease;
    retaken?: boolean;
  }) => Promise<void>;
  /** The work is a turn on the chat's current thread: its lease may be taken ahead with the row (AheadLease). */
  turn?: true;
}

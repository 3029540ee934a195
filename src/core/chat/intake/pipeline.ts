import { ChatTurns } from '../queue/chat-turns.ts';
import type { OrderedWork } from '../queue/turn-hand-offs.ts';
import type { Accepted, PipelineOptions, PipelineOutcome, Work } from './pipeline-types.ts';
import { parseInboundEvent, type ChatRef, type Actor, type InboundEvent } from '../../surface/index.ts';
import { inboxKey, type InboxRow } from '../inbox/inbox.ts';
import { RefusalLimiter } from './refusals.ts';
import type { Role } from './access.ts';
import { RefusedEvents } from './refused-events.ts';
import { WorkPlanner } from './work-plan.ts';
import { Attempts } from './attempt.ts';

/**
 * The one inbound path every adapter uses: drop own messages → check access → record in the inbox
 * (durable, unique by platform event id: the dedupe guard) → commands or the agent. Recording comes
 * before the platform is acknowledged, and an event stays in the inbox until its work ends, so a
 * crash loses nothing: {@link recover} takes up what was left at the next start. A chat's messages run
 * one at a time in the inbox's arrival order, across every process on the database, by whichever process
 * holds the chat's lease (ChatTurns); a decision runs in the queue of the chat its question came from.
 */
export class InboundPipeline {
  readonly #o: PipelineOptions;
  readonly #refused: RefusedEvents;
  /** Events this process accepted and has not finished: the rest of its own unfinished rows are orphans. */
  readonly #working = new Set<string>();
  readonly #turns: ChatTurns;
  readonly #planner: WorkPlanner;
  readonly #attempts: Attempts;
  #closed = false;

  constructor(options: PipelineOptions) {
    this.#o = options;
    this.#planner = new WorkPlanner(options, {
      send: (chat, text) => this.#send(chat, text),
      privately: (chat, actor, text) => this.#private(chat, actor, text),
      failed: (chat, error) => this.#o.logger?.error({ err: error, chat }, 'could not send'),
    });
    this.#attempts = new Attempts(options, { send: (chat, text) => this.#send(chat, text) });
    this.#refused = new RefusedEvents({
      limiter: options.refusals ?? new RefusalLimiter(),
      inbox: options.inbox,
      tell: (chat, actor, text) => this.#private(chat, actor, text),
      pairing: options.pairing,
      logger: options.logger,
    });
    const staleAfterMs = options.staleAfterMs ?? 15_000;
    this.#turns = new ChatTurns({
      inbox: options.inbox,
      plan: (row) => this.#ordered(row),
      staleAfterMs,
      renewMs: Math.max(100, Math.floor(staleAfterMs / 3)),
      track: (work) => options.queues.track(work),
      ...(options.leases && { leases: options.leases }),
      ...(options.clock && { clock: options.clock }),
      ...(options.logger && { logger: options.logger }),
    });
  }

  /**
   * Records the event, then starts its work without waiting for it. Resolves once the event is durable
   * (or needs nothing); rejects with InboxUnavailableError when it could not be recorded and with
   * InvalidInboundEventError when it is malformed — acknowledge the platform only after this resolves.
   */
  async accept(raw: InboundEvent): Promise<Accepted> {
    if (this.#closed) return settled('stopping');
    const event = parseInboundEvent(raw);
    if (event.fromSelf) return settled('own');
    const verdict = this.#o.access.check(event.actor, event.chat);
    if (!verdict.ok) {
      if (await this.#o.inbox.record(event, 'refused'))
        return { status: 'refused', done: this.#refused.first(event, verdict.reason).then(() => 'refused' as const) };
      const again = await this.#refused.again(event, verdict.reason);
      return again ? { status: 'refused', done: again.told.then(() => 'refused' as const) } : settled('duplicate');
    }
    if (!(await this.#o.inbox.record(event, 'received'))) return this.#redelivered(event);
    // The welcome is part of the event's work, not of its acceptance: the platform is acknowledged at once.
    return { status: 'accepted', done: this.#welcome(event, verdict.role).then(() => this.#start(event)) };
  }

  /**
   * A redelivery. Usually the event is in hand already (or done); but when an earlier write landed after
   * its attempt failed (timed out, answer lost), the row is ours and unstarted: start it now. A row that
   * cannot be read back rejects (InboxUnavailableError), so the platform delivers the event again.
   */
  async #redelivered(event: InboundEvent): Promise<Accepted> {
    const row = await this.#o.inbox.recorded(inboxKey(event));
    if (row.state !== 'received' || row.owner !== this.#o.inbox.owner || this.#working.has(keyOf(event)))
      return settled('duplicate');
    return { status: 'accepted', done: this.#start(event) };
  }

  /** {@link accept}, then waits for the event's work (a turn finished or paused on a question). */
  async handle(event: InboundEvent): Promise<PipelineOutcome> {
    return (await this.accept(event)).done;
  }

  /**
   * Takes up events a stopped process left unfinished (recorded, or begun and never ended) and untouched
   * since `staleBefore`: longer ago than a live process's heartbeat on a shared database; on the embedded
   * one, the moment this process started (a row touched since is its own, received since its platforms
   * started). Each goes back into its chat's queue in arrival order; returns how many were found.
   */
  async recover({ staleBefore }: { staleBefore: Date }): Promise<number> {
    const rows = (await this.#o.inbox.unfinished(staleBefore)).filter((row) => !this.#working.has(keyOf(row)));
    for (const row of rows) {
      let event: InboundEvent;
      try {
        event = parseInboundEvent(row.event);
      } catch (error) {
        this.#o.logger?.error(
          { err: error, platform: row.platform, event: row.eventId },
          'an unfinished inbound event could not be read back; it is skipped',
        );
        continue;
      }
      this.#o.logger?.info(
        { platform: row.platform, event: row.eventId, attempts: row.attempts },
        'taking up an event a stopped process left unfinished',
      );
      void this.#start(event, staleBefore).catch((error: unknown) =>
        this.#o.logger?.error(
          { err: error, event: row.eventId },
          'taking up an unfinished event failed; the next sweep tries again',
        ),
      );
    }
    return rows.length;
  }

  /**
   * Stops intake: later events get 'stopping'. Work already queued still runs (see ChatQueues.idle), and
   * so do the messages of chats this process holds the lease of; messages waiting for another process's
   * lease are let go, their rows left for that process or the next start (see ChatTurns.close).
   */
  close(): void {
    this.#closed = true;
    this.#turns.close();
  }

  /** Routes the event and queues its work; claiming the inbox row happens when the work's turn comes. */
  async #start(event: InboundEvent, staleBefore?: Date): Promise<PipelineOutcome> {
    const key = keyOf(event);
    this.#working.add(key);
    try {
      return await this.#route(event, staleBefore);
    } finally {
      this.#working.delete(key);
    }
  }

  async #route(event: InboundEvent, staleBefore: Date | undefined): Promise<PipelineOutcome> {
    const { work, ordered } = await this.#planner.plan(event);
    if (ordered)
      return this.#turns.submit(event.chat, inboxKey(event), {
        ...(staleBefore && { staleBefore }),
        threadLease: work.turn === true,
      });
    const run = () => this.#claimed(event, staleBefore, work);
    return work.queue ? this.#o.queues.run(work.queue, run) : run();
  }

  /**
   * A row as the chat's lease holder sees it: its work, when it waits its turn in its chat's order across
   * processes — a message (a turn, or a command typed in the chat that runs in the chat's queue, like
   * /new). Commands that need no order (/status), platform commands (answered through the receiving
   * process's own interaction) and button taps (decided in the question's chat queue) run where they
   * were received.
   */
  async #ordered(row: InboxRow): Promise<OrderedWork | undefined> {
    let event: InboundEvent;
    try {
      event = parseInboundEvent(row.event);
    } catch {
      return undefined; // unreadable: recover() logs it; it must not hold up the chat
    }
    if (event.kind !== 'message') return undefined;
    const { work, ordered } = await this.#planner.plan(event);
    if (!ordered) return undefined;
    return {
      run: (taken, options) => this.#o.queues.run(event.chat, () => this.#attempts.run(event, taken, work, options)),
    };
  }

  /**
   * Runs a recorded event's work once: claims its row (the inbox's heartbeat keeps it), {@link #attempt}, ends the row.
   */
  async #claimed(event: InboundEvent, staleBefore: Date | undefined, work: Work): Promise<PipelineOutcome> {
    const row = await this.#o.inbox.claim(inboxKey(event), staleBefore ? { staleBefore } : {});
    if (!row) return 'duplicate'; // another process (or an earlier recovery) has it
    const { outcome, end } = await this.#attempts.run(event, row, work);
    if (end) await this.#o.onWorked?.(event);
    if (end)
      await this.#o.inbox
        .finish(end.key, end.state, end.error)
        .catch((error: unknown) =>
          this.#o.logger?.error({ err: error, event: event.eventId }, 'could not mark an inbound event finished'),
        );
    return outcome;
  }

  /**
   * The welcome before the answer, on a person's first direct message: through the outbox, keyed by the
   * event, so a rate limit delays it (and the answer behind it) instead of losing it.
   */
  async #welcome(event: InboundEvent, role: Role): Promise<void> {
    try {
      const text = await this.#o.welcome?.(event, role);
      if (text)
        await this.#o.replies.deliver(event.chat, [{ key: `welcome-${event.platform}-${event.eventId}`, text }]);
    } catch (error) {
      this.#o.logger?.warn({ err: error, event: event.eventId }, 'could not welcome a first direct message');
    }
  }

  async #send(chat: ChatRef, text: string): Promise<void> {
    await this.#o.surfaces
      .send(chat, { text })
      .catch((error: unknown) => this.#o.logger?.error({ err: error, chat }, 'could not send'));
  }

  async #private(chat: ChatRef, actor: Actor, text: string): Promise<void> {
    await this.#o.surfaces
      .replyPrivately(chat, actor, text)
      .catch((error: unknown) => this.#o.logger?.error({ err: error, chat }, 'could not send'));
  }
}

function keyOf(event: Pick<InboundEvent, 'platform' | 'eventId'>): string {
  return `${event.platform}\u0000${event.eventId}`;
}

function settled(status: 'own' | 'duplicate' | 'stopping'): Accepted {
  return { status, done: Promise.resolve(status) };
}

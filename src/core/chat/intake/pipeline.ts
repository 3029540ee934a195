import { TurnInterruptedError, type RowEnd } from '../../turns/index.ts';
import { parseCommand } from '../../commands/index.ts';
import type { Role } from './access.ts';
import { ChatTurns } from '../queue/chat-turns.ts';
import type { OrderedWork } from '../queue/turn-hand-offs.ts';
import type { Accepted, PipelineOptions, PipelineOutcome, Work } from './pipeline-types.ts';
import { parseInboundEvent, type ChatRef, type Actor, type InboundEvent } from '../../surface/index.ts';
import { inboxKey, turnIdOf, type InboxRow } from '../inbox/inbox.ts';
import { RefusalLimiter } from './refusals.ts';
import { RefusedEvents } from './refused-events.ts';

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
  #closed = false;

  constructor(options: PipelineOptions) {
    this.#o = options;
    this.#refused = new RefusedEvents({ limiter: options.refusals ?? new RefusalLimiter(), inbox: options.inbox, tell: (chat, actor, text) => this.#private(chat, actor, text), logger: options.logger });
    const staleAfterMs = options.staleAfterMs ?? 15_000;
    this.#turns = new ChatTurns({
      inbox: options.inbox, plan: (row) => this.#ordered(row), staleAfterMs, renewMs: Math.max(100, Math.floor(staleAfterMs / 3)),
      track: (work) => options.queues.track(work),
      ...(options.leases && { leases: options.leases }), ...(options.clock && { clock: options.clock }), ...(options.logger && { logger: options.logger }),
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
      if (await this.#o.inbox.record(event, 'refused')) return { status: 'refused', done: this.#refused.first(event, verdict.reason).then(() => 'refused' as const) };
      const again = await this.#refused.again(event, verdict.reason);
      return again ? { status: 'refused', done: again.told.then(() => 'refused' as const) } : settled('duplicate');
    }
    if (!(await this.#o.inbox.record(event, 'received'))) return this.#redelivered(event);
    return { status: 'accepted', done: this.#start(event) };
  }

  /**
   * A redelivery. Usually the event is in hand already (or done); but when an earlier write landed after
   * its attempt failed (timed out, answer lost), the row is ours and unstarted: start it now. A row that
   * cannot be read back rejects (InboxUnavailableError), so the platform delivers the event again.
   */
  async #redelivered(event: InboundEvent): Promise<Accepted> {
    const row = await this.#o.inbox.recorded(inboxKey(event));
    if (row.state !== 'received' || row.owner !== this.#o.inbox.owner || this.#working.has(keyOf(event))) return settled('duplicate');
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
        this.#o.logger?.error({ err: error, platform: row.platform, event: row.eventId }, 'an unfinished inbound event could not be read back; it is skipped');
        continue;
      }
      this.#o.logger?.info({ platform: row.platform, event: row.eventId, attempts: row.attempts }, 'taking up an event a stopped process left unfinished');
      void this.#start(event, staleBefore).catch((error: unknown) => this.#o.logger?.error({ err: error, event: row.eventId }, 'taking up an unfinished event failed; the next sweep tries again'));
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
    const { work, ordered } = await this.#plan(event);
    if (ordered) return this.#turns.submit(event.chat, inboxKey(event), staleBefore ? { staleBefore } : {});
    const run = () => this.#claimed(event, staleBefore, work);
    return work.queue ? this.#o.queues.run(work.queue, run) : run();
  }

  /**
   * An event's work as things stand, and whether it waits its turn in its chat's order across processes:
   * a message (a turn, or a command typed in the chat that runs in the chat's queue, like /new). Commands
   * that need no order (/status), platform commands (answered through the receiving process's own
   * interaction) and button taps (decided in the question's chat queue) run where they were received.
   */
  async #plan(event: InboundEvent): Promise<{ work: Work; ordered: boolean }> {
    const verdict = this.#o.access.check(event.actor, event.chat);
    if (!verdict.ok) return { work: { run: async () => {} }, ordered: false }; // access was narrowed since
    const actor: Actor = verdict.operator && !event.actor.displayName ? { ...event.actor, displayName: verdict.operator.name } : event.actor;
    const work = await this.#work(event, actor, verdict.role);
    return { work, ordered: event.kind === 'message' && work.queue === event.chat };
  }

  /** A row as the chat's lease holder sees it: its work, when it is a message that waits its turn. */
  async #ordered(row: InboxRow): Promise<OrderedWork | undefined> {
    let event: InboundEvent;
    try {
      event = parseInboundEvent(row.event);
    } catch {
      return undefined; // unreadable: recover() logs it; it must not hold up the chat
    }
    if (event.kind !== 'message') return undefined;
    const { work, ordered } = await this.#plan(event);
    if (!ordered) return undefined;
    return { run: (taken, options) => this.#o.queues.run(event.chat, () => this.#attempt(event, taken, work, options)) };
  }

  async #work(event: InboundEvent, actor: Actor, role: Role): Promise<Work> {
    if (event.kind === 'action') {
      const routed = await this.#o.actions.route(event.actionId);
      if (!routed) return { run: () => this.#private(event.chat, actor, 'This button is no longer active (the question was settled or Kazma restarted).') };
      return { queue: routed.queue, run: () => routed.run({ actor, via: event.chat }) };
    }
    const command = event.kind === 'command' ? { name: event.name.toLowerCase(), args: event.args, rest: event.args.join(' ') } : parseCommand(event.text);
    if (command) return this.#command(event.chat, actor, role, command, event.kind === 'command' && event.answerPrivately === true);
    const text = event.kind === 'message' ? event.text : '';
    return { queue: event.chat, run: (options) => this.#o.runner.message({ chat: event.chat, actor, text, turnId: turnIdOf(inboxKey(event)) }, options) };
  }

  /** Runs a recorded event's work once: claims its row (the inbox's heartbeat keeps it), {@link #attempt}, ends the row. */
  async #claimed(event: InboundEvent, staleBefore: Date | undefined, work: Work): Promise<PipelineOutcome> {
    const row = await this.#o.inbox.claim(inboxKey(event), staleBefore ? { staleBefore } : {});
    if (!row) return 'duplicate'; // another process (or an earlier recovery) has it
    const { outcome, end } = await this.#attempt(event, row, work);
    if (end) await this.#o.inbox.finish(end.key, end.state, end.error).catch((error: unknown) => this.#o.logger?.error({ err: error, event: event.eventId }, 'could not mark an inbound event finished'));
    return outcome;
  }

  /**
   * Runs the work of a row this process holds, and says how the row ends: done, or failed. An event that
   * already began `maxAttempts` times (each time the process stopped) is given up with a message instead
   * of started again. A shutdown leaves the row running, for the next start (no end).
   */
  async #attempt(event: InboundEvent, row: InboxRow, work: Work, options?: Parameters<Work['run']>[0]): Promise<{ outcome: PipelineOutcome; end?: RowEnd }> {
    const key = inboxKey(event);
    const { logger } = this.#o;
    const maxAttempts = this.#o.maxAttempts ?? 3;
    if (row.attempts > maxAttempts) {
      await this.#giveUp(event, row.attempts - 1).catch((error: unknown) => logger?.error({ err: error }, 'could not end an event that kept stopping Kazma'));
      return { outcome: 'handled', end: { key, state: 'failed', error: `given up after ${row.attempts - 1} attempts` } };
    }
    try {
      await work.run(options);
      return { outcome: 'handled', end: { key, state: 'done' } };
    } catch (error) {
      if (error instanceof TurnInterruptedError) return { outcome: 'stopping' };
      await this.#failed(event.chat, error);
      return { outcome: 'handled', end: { key, state: 'failed', error: error instanceof Error ? error.message : String(error) } };
    }
  }

  async #giveUp(event: InboundEvent, attempts: number): Promise<void> {
    this.#o.logger?.error({ platform: event.platform, event: event.eventId, attempts }, 'an event stopped Kazma every time it was worked on; giving it up');
    const text = `⚠️ I could not finish this: Kazma stopped ${attempts} times while working on it, so I have given up on it. Nothing more will run for it; send it again if you still need it.`;
    if (event.kind === 'message' && !parseCommand(event.text)) await this.#o.runner.endTurn({ chat: event.chat, turnId: turnIdOf(inboxKey(event)), text });
    else await this.#send(event.chat, text);
  }

  #command(chat: ChatRef, actor: Actor, role: Role, parsed: { name: string; args: string[]; rest: string }, privately: boolean): Work {
    const reply = (text: string) => (privately ? this.#private(chat, actor, text) : this.#send(chat, text));
    const command = this.#o.commands.get(parsed.name);
    if (!command) return { run: () => reply(`Unknown command /${parsed.name}. /help lists the commands.`) };
    if (command.operatorOnly && role !== 'operator') {
      // Refused privately (others in a group need not see it), and told to the module that owns the command.
      return {
        run: async () => {
          await this.#o.commands.refused({ command: command.name, rest: parsed.rest, actor, chat });
          await this.#private(chat, actor, `/${command.name} is for operators only.`);
        },
      };
    }
    const run = () => command.run({ chat, actor, role, ...parsed, commands: this.#o.commands, reply });
    return command.serial === false ? { run } : { queue: chat, run };
  }

  async #failed(chat: ChatRef, error: unknown): Promise<void> {
    this.#o.logger?.error({ err: error, chat }, 'handling an event failed');
    await this.#send(chat, `⚠️ Something went wrong handling that: ${error instanceof Error ? error.message : String(error)}`);
  }

  async #send(chat: ChatRef, text: string): Promise<void> {
    await this.#o.surfaces.send(chat, { text }).catch((error: unknown) => this.#o.logger?.error({ err: error, chat }, 'could not send'));
  }

  async #private(chat: ChatRef, actor: Actor, text: string): Promise<void> {
    await this.#o.surfaces.replyPrivately(chat, actor, text).catch((error: unknown) => this.#o.logger?.error({ err: error, chat }, 'could not send'));
  }
}

function keyOf(event: Pick<InboundEvent, 'platform' | 'eventId'>): string {
  return `${event.platform}\u0000${event.eventId}`;
}

function settled(status: 'own' | 'duplicate' | 'stopping'): Accepted {
  return { status, done: Promise.resolve(status) };
}

import type { TurnRunner } from '../agent/turn-runner.ts';
import type { ApprovalBroker } from '../approvals/port.ts';
import { parseCommand } from '../commands/parse.ts';
import type { CommandRegistry, CommandServices } from '../commands/registry.ts';
import type { Logger } from '../log/index.ts';
import type { AccessPolicy, Role } from './access.ts';
import type { ChatQueues } from './chat-queue.ts';
import type { ProcessedEvents } from './dedupe.ts';
import { chatOf, type ChatRef } from './ref.ts';
import { RefusalLimiter } from './refusals.ts';
import type { SurfaceRegistry } from './surfaces.ts';
import type { Actor, InboundEvent } from './types.ts';

/** What {@link InboundPipeline.handle} did with an event. */
export type PipelineOutcome = 'handled' | 'own' | 'duplicate' | 'refused' | 'stopping';

/** The parts the pipeline routes between; all built by the composition root. */
export interface PipelineOptions {
  dedupe: ProcessedEvents;
  access: AccessPolicy;
  commands: CommandRegistry;
  services: CommandServices;
  runner: Pick<TurnRunner, 'message' | 'decide'>;
  broker: Pick<ApprovalBroker, 'route'>;
  surfaces: SurfaceRegistry;
  queues: ChatQueues;
  /** When a refused sender is told so; default once per person per chat per day. */
  refusals?: RefusalLimiter;
  logger?: Logger;
}

/**
 * The one inbound path every adapter uses: drop own messages → dedupe by platform event id (durable)
 * → access check → commands or the agent. Turns of one chat run one at a time in arrival order, and
 * a decision runs in the queue of the chat its question came from. `handle` resolves once the event's
 * work is done (a turn finished or paused on a question), so a caller may await it or not.
 */
export class InboundPipeline {
  readonly #o: PipelineOptions;
  readonly #refusals: RefusalLimiter;
  #closed = false;

  constructor(options: PipelineOptions) {
    this.#o = options;
    this.#refusals = options.refusals ?? new RefusalLimiter();
  }

  async handle(event: InboundEvent): Promise<PipelineOutcome> {
    if (this.#closed) return 'stopping';
    if (event.fromSelf) return 'own';
    if (!(await this.#o.dedupe.firstSeen(event.platform, event.eventId))) return 'duplicate';
    const verdict = this.#o.access.check(event.actor, event.chat);
    if (!verdict.ok) {
      await this.#refuse(event, verdict.reason);
      return 'refused';
    }
    const actor: Actor = verdict.operator && !event.actor.displayName ? { ...event.actor, displayName: verdict.operator.name } : event.actor;
    if (event.kind === 'action') {
      const routed = await this.#o.broker.route(event.actionId);
      if (!routed) await this.#private(event.chat, actor, 'This button is no longer active (the question was settled or Kazma restarted).');
      else await this.#queued(routed.chat, async () => void (await this.#o.runner.decide({ gateId: routed.gateId, decision: routed.decision, actor, via: event.chat })));
      return 'handled';
    }
    const command = event.kind === 'command' ? { name: event.name.toLowerCase(), args: event.args, rest: event.args.join(' ') } : parseCommand(event.text);
    const privately = event.kind === 'command' && event.answerPrivately === true;
    if (command) await this.#command(event.chat, actor, verdict.role, command, privately);
    else if (event.kind === 'message') await this.#queued(event.chat, () => this.#o.runner.message({ chat: event.chat, actor, text: event.text }));
    return 'handled';
  }

  /** Stops intake: later events get 'stopping'; work already queued still runs (see ChatQueues.idle). */
  close(): void {
    this.#closed = true;
  }

  async #command(chat: ChatRef, actor: Actor, role: Role, parsed: { name: string; args: string[]; rest: string }, privately: boolean): Promise<void> {
    const reply = (text: string) => (privately ? this.#private(chat, actor, text) : this.#send(chat, text));
    const command = this.#o.commands.get(parsed.name);
    if (!command) return reply(`Unknown command /${parsed.name}. /help lists the commands.`);
    if (command.operatorOnly && role !== 'operator') return reply(`/${command.name} is for operators only.`);
    const run = () => command.run({ chat, actor, role, ...parsed, services: this.#o.services, commands: this.#o.commands, reply });
    if (command.serial === false) await run().catch((error: unknown) => this.#failed(chat, error));
    else await this.#queued(chat, run);
  }

  async #queued(chat: ChatRef, work: () => Promise<void>): Promise<void> {
    await this.#o.queues.run(chat, work).catch((error: unknown) => this.#failed(chat, error));
  }

  async #refuse(event: InboundEvent, reason: string): Promise<void> {
    this.#o.logger?.info({ platform: event.platform, actor: event.actor.id, chat: event.chat }, 'refused by access control');
    // Once per person per chat per day: a stranger in a busy group must not get a refusal per message.
    if (!this.#refusals.shouldTell(`${event.platform}:${event.actor.id}`, chatOf(event.chat))) return;
    await this.#private(event.chat, event.actor, `⛔ Sorry, ${reason}.`);
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

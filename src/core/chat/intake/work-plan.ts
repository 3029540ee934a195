// What an accepted event asks for, as one unit of work: a button's action, a command (with its operator
// check) or a turn of the agent, and the queue it waits in.
import { type CommandContext, parseCommand, UndeclaredCommandWriteError } from '../../commands/index.ts';
import type { Actor, ChatRef, InboundEvent } from '../../surface/index.ts';
import { inboxKey, turnIdOf } from '../inbox/inbox.ts';
import type { Role } from './access.ts';
import type { PipelineOptions, Work } from './pipeline-types.ts';

/** How the planner answers someone: in the chat, or privately to the one who asked. */
export interface Say {
  send(chat: ChatRef, text: string): Promise<void>;
  privately(chat: ChatRef, actor: Actor, text: string): Promise<void>;
  /** An answer could not be written (logged; like a failed send, it does not fail the command). */
  failed(chat: ChatRef, error: unknown): void;
}

type Planning = Pick<PipelineOptions, 'access' | 'actions' | 'commands' | 'runner' | 'journal' | 'replies'>;

export class WorkPlanner {
  readonly #o: Planning;
  readonly #say: Say;

  constructor(options: Planning, say: Say) {
    this.#o = options;
    this.#say = say;
  }

  /** The event's work, and whether it is a chat message that waits its turn in the chat's order. */
  async plan(event: InboundEvent): Promise<{ work: Work; ordered: boolean }> {
    const verdict = this.#o.access.check(event.actor, event.chat);
    if (!verdict.ok) return { work: { run: async () => {} }, ordered: false }; // access was narrowed since
    const actor: Actor =
      verdict.operator && !event.actor.displayName
        ? { ...event.actor, displayName: verdict.operator.name }
        : event.actor;
    const work = await this.#work(event, actor, verdict.role);
    return { work, ordered: event.kind === 'message' && work.queue === event.chat };
  }

  async #work(event: InboundEvent, actor: Actor, role: Role): Promise<Work> {
    if (event.kind === 'action') {
      const routed = await this.#o.actions.route(event.actionId);
      if (!routed)
        return {
          run: () =>
            this.#say.privately(
              event.chat,
              actor,
              'This button is no longer active (the question was settled or Kazma restarted).',
            ),
        };
      const eventKey = turnIdOf(inboxKey(event));
      const { message: tapped, reason } = event;
      return {
        queue: routed.queue,
        run: () =>
          routed.run({ actor, via: event.chat, eventKey, ...(tapped && { tapped }), ...(reason && { reason }) }),
      };
    }
    const command =
      event.kind === 'command'
        ? { name: event.name.toLowerCase(), args: event.args, rest: event.args.join(' ') }
        : parseCommand(event.text);
    if (command)
      return this.#command(
        event.chat,
        actor,
        role,
        command,
        event.kind === 'command' && event.answerPrivately === true,
        turnIdOf(inboxKey(event)),
      );
    const text = event.kind === 'message' ? event.text : '';
    const attachments = event.kind === 'message' ? event.attachments : undefined;
    const turnId = turnIdOf(inboxKey(event));
    return {
      queue: event.chat,
      turn: true,
      run: ({ retaken, ...options } = {}) =>
        this.#o.runner.message(
          { chat: event.chat, actor, text, turnId, ...(attachments && { attachments }), ...(retaken && { retaken }) },
          options,
        ),
    };
  }

  #command(
    chat: ChatRef,
    actor: Actor,
    role: Role,
    parsed: { name: string; args: string[]; rest: string },
    privately: boolean,
    eventKey: string,
  ): Work {
    const say = (text: string) => (privately ? this.#say.privately(chat, actor, text) : this.#say.send(chat, text));
    const command = this.#o.commands.get(parsed.name);
    if (!command) return { run: () => say(`Unknown command /${parsed.name}. /help lists the commands.`) };
    if (command.operatorOnly && role !== 'operator') {
      // Refused privately (others in a group need not see it), and told to the module that owns the command.
      return {
        run: async () => {
          await this.#o.commands.refused({ command: command.name, rest: parsed.rest, actor, chat });
          await this.#say.privately(chat, actor, `/${command.name} is for operators only.`);
        },
      };
    }
    const run = () => {
      // Numbered in the order given, the same on every run of this event: an answer already sent is not sent again.
      let answers = 0;
      const reply = (text: string) =>
        privately
          ? say(text)
          : this.#o.replies
              .deliver(chat, [{ key: `command:${eventKey}:${++answers}`, text }])
              .catch((error) => this.#say.failed(chat, error));
      const once: CommandContext['once'] = (name, effect) => {
        if (!command.writes) throw new UndeclaredCommandWriteError(command.name);
        return this.#o.journal.once({ event: eventKey, command: name }, effect);
      };
      return command.run({ chat, actor, role, ...parsed, commands: this.#o.commands, eventKey, reply, once });
    };
    return command.serial === false ? { run } : { queue: chat, run };
  }
}

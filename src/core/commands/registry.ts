import type { Role } from '../chat/index.ts';
import type { Db } from '../db/index.ts';
import type { JsonValue } from '../effects/index.ts';
import type { ChatRef, Actor } from '../surface/index.ts';
import { KazmaError } from '../errors.ts';

/** What a command sees of the message that invoked it. Its module's port it holds itself. */
export interface CommandContext {
  chat: ChatRef;
  actor: Actor;
  role: Role;
  args: string[];
  rest: string;
  commands: CommandRegistry;
  /** The inbound event's turn id (`<platform>:<event id>`): the same every time the event is taken up. */
  eventKey: string;
  /**
   * Answers in the chat (privately where the platform command asked for it). An answer in the chat is an
   * outbox row keyed by the event and the answer's place, so an event taken up again does not say it twice.
   */
  reply(text: string): Promise<void>;
  /**
   * Makes the command's change once for this event (CommandJournal.once): `effect` writes on the
   * transaction it is handed, and its result is recorded with it; an event taken up again after a crash
   * gets the recorded result and `effect` does not run. Only for commands defined with `writes: true`.
   */
  once<T extends JsonValue>(name: string, effect: (tx: Db) => Promise<T>): Promise<T>;
}

/**
 * One chat command. Each module's factory builds its commands around its own port
 * (`approvalCommands(approvals)`), so a command can reach only what its module owns.
 */
export interface ChatCommand {
  /** Lower-case, without the slash. */
  name: string;
  /** One line for /help. */
  summary: string;
  /** Only operators may run it (the rest get a refusal). Default false. */
  operatorOnly?: boolean;
  /**
   * Runs in the chat's queue, after turns already queued (needed when it changes the conversation,
   * like /new). Default true; read-only commands such as /status set false to answer at once.
   */
  serial?: boolean;
  /**
   * It changes state. Its every change goes through `ctx.once`, so the event taken up again after a crash
   * does not change it twice (tests/commands/writes-once.test.ts checks each such command).
   */
  writes?: boolean;
  run(ctx: CommandContext): Promise<void>;
}

/** Lines a module adds to /status for a chat ("pending approvals: 2"). */
export interface StatusSection {
  name: string;
  lines(chat: ChatRef): Promise<string[]>;
}

/** Two commands were registered under one name. */
export class DuplicateCommandError extends KazmaError {
  constructor(name: string) {
    super('command_duplicate', `a command named /${name} is already registered`);
  }
}

/** A command not defined with `writes: true` asked to change state through `ctx.once`. */
export class UndeclaredCommandWriteError extends KazmaError {
  constructor(name: string) {
    super('command_undeclared_write', `/${name} changes state but is not defined with writes: true`);
  }
}

/**
 * The chat commands, platform-neutral: adapters hand text or native commands to the pipeline, which
 * looks them up here. Modules register their commands and their /status sections when assembled.
 */
/** Someone who may not run an operators-only command tried to. */
export interface CommandRefusal {
  command: string;
  rest: string;
  actor: Actor;
  chat: ChatRef;
}

export class CommandRegistry {
  readonly #commands = new Map<string, ChatCommand>();
  readonly #status: StatusSection[] = [];
  readonly #refusalHandlers: Array<(refusal: CommandRefusal) => Promise<void>> = [];

  register(command: ChatCommand): this {
    if (this.#commands.has(command.name)) throw new DuplicateCommandError(command.name);
    this.#commands.set(command.name, command);
    return this;
  }

  get(name: string): ChatCommand | undefined {
    return this.#commands.get(name.toLowerCase());
  }

  list(): ChatCommand[] {
    return [...this.#commands.values()];
  }

  /** Called for every refused operators-only command (the owning module audits it). */
  onRefused(handler: (refusal: CommandRefusal) => Promise<void>): this {
    this.#refusalHandlers.push(handler);
    return this;
  }

  async refused(refusal: CommandRefusal): Promise<void> {
    for (const handler of this.#refusalHandlers) await handler(refusal);
  }

  /** Adds a /status section; sections show in the order added. */
  addStatus(section: StatusSection): this {
    this.#status.push(section);
    return this;
  }

  /** Every section's lines for `chat`, in order. */
  async status(chat: ChatRef): Promise<string[]> {
    const parts = await Promise.all(this.#status.map((section) => section.lines(chat)));
    return parts.flat();
  }
}

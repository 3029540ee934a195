import type { Role } from '../chat/access.ts';
import type { ChatRef } from '../chat/ref.ts';
import type { Actor } from '../chat/types.ts';
import { KazmaError } from '../errors.ts';

/**
 * What commands may use of the running core. Kept as a narrow interface so commands stay testable
 * and later commands (`/approve`, `/approvals`, `/config tools toggle`) add members here.
 */
export interface CommandServices {
  /** Supersedes the chat's pending question and moves it to a fresh thread; returns the thread id. */
  startNewThread(chat: ChatRef): Promise<string>;
  currentThread(chat: ChatRef): Promise<string>;
  pendingApprovals(chat: ChatRef): Promise<number>;
  /** Decides a gate as `actor` (like a button tap), in the gate's own chat queue; returns what to tell them. */
  decide(input: { gateId: string; decision: 'once' | 'always' | 'deny'; actor: Actor; via: ChatRef; reason?: string }): Promise<string>;
  /** Live "always" grants of `chat`. */
  grants(chat: ChatRef): Promise<Array<{ id: string; tool: string; grantedBy?: string; expiresAt: Date }>>;
  revokeGrant(id: string): Promise<boolean>;
  /** The ids of the questions waiting in `chat`, oldest first. */
  pendingApprovalIds(chat: ChatRef): Promise<string[]>;
  /**
   * Posts a waiting question's card again in `chat` (/approvals), through the outbox as a card of the
   * gate, so it is edited to the outcome like the others; false when the question is no longer waiting.
   */
  repostApproval(gateId: string, chat: ChatRef): Promise<boolean>;
  /** Model labels in the order tried; empty when none is configured. */
  models(): string[];
  /** Milliseconds since Kazma started. */
  uptimeMs(): number;
}

/** What a command sees of the message that invoked it. */
export interface CommandContext {
  chat: ChatRef;
  actor: Actor;
  role: Role;
  args: string[];
  rest: string;
  services: CommandServices;
  commands: CommandRegistry;
  /** Answers in the chat. */
  reply(text: string): Promise<void>;
}

/** One chat command. */
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
  run(ctx: CommandContext): Promise<void>;
}

/** Two commands were registered under one name. */
export class DuplicateCommandError extends KazmaError {
  constructor(name: string) {
    super('command_duplicate', `a command named /${name} is already registered`);
  }
}

/**
 * The chat commands, platform-neutral: adapters hand text or native commands to the pipeline, which
 * looks them up here. Later issues register more commands on the same registry.
 */
export class CommandRegistry {
  readonly #commands = new Map<string, ChatCommand>();

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
}

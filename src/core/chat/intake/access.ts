import type { KazmaConfig, Operator } from '../../config/index.ts';
import { isPlatform, chatOf, type ChatRef, type Actor } from '../../surface/index.ts';

/** Who someone is to Kazma: an operator (chat, approve, /config), a user, or a member of an allowed chat. */
export type Role = 'operator' | 'user' | 'chat_member';

/** The access verdict for one inbound event. */
export type AccessVerdict = { ok: true; role: Role; operator?: Operator } | { ok: false; reason: string };

/** The operator the console acts as when access.operators is empty. */
export const LOCAL_OPERATOR: Operator = { name: 'local', console: 'local', api_token: '' };

/**
 * `access` and `approvals` of kazma.yaml as decisions. Operators are matched by their per-platform id
 * (never by display name); `access.users` lists `<platform>:<user id>`; `access.chats` lists chats
 * whose members may talk to Kazma. The console is the operator named by `access.operators[].console`,
 * else the first operator, else a local operator.
 */
export class AccessPolicy {
  readonly #access: KazmaConfig['access'];
  readonly #approvals: KazmaConfig['approvals'];
  readonly #console: Operator;

  readonly #paired: { has(user: string): boolean } | undefined;
  readonly #claimed: { operatorOf(user: string): string | undefined } | undefined;

  /**
   * `paired`: the people DM pairing let in (core/pairing), users as `access.users` are. `claimed`: who
   * sent an operator code of `kazma init`, and the operator name (in access.operators) they became.
   */
  constructor(options: {
    access: KazmaConfig['access'];
    approvals: KazmaConfig['approvals'];
    paired?: { has(user: string): boolean };
    claimed?: { operatorOf(user: string): string | undefined };
  }) {
    this.#access = options.access;
    this.#paired = options.paired;
    this.#claimed = options.claimed;
    this.#approvals = options.approvals;
    const operators = options.access.operators;
    this.#console = operators.find((o) => o.console !== undefined) ?? operators[0] ?? LOCAL_OPERATOR;
  }

  /** The actor the local console speaks as. */
  consoleActor(): Actor {
    return { platform: 'console', id: this.#console.console ?? this.#console.name, displayName: this.#console.name };
  }

  /** The operator entry `actor` is, if any. */
  operatorOf(actor: Actor): Operator | undefined {
    if (actor.platform === 'console') {
      const console = this.consoleActor();
      if (actor.id === console.id) return this.#console;
    }
    // The HTTP API and the web page know the caller by their own token (access.operators[].api_token)
    // and name them.
    if (actor.platform === 'api' || actor.platform === 'web')
      return this.#access.operators.find((o) => o.name === actor.id);
    const platform = actor.platform;
    if (!isPlatform(platform)) return undefined;
    const listed = this.#access.operators.find((o) => o[platform] === actor.id);
    if (listed) return listed;
    // A claimed id counts as written in the file, for as long as the operator's name stays in it.
    const name = this.#claimed?.operatorOf(`${platform}:${actor.id}`);
    const named = name === undefined ? undefined : this.#access.operators.find((o) => o.name === name);
    return named && { ...named, [platform]: actor.id };
  }

  /** May `actor` talk to Kazma in `chat`? */
  check(actor: Actor, chat: ChatRef): AccessVerdict {
    const operator = this.operatorOf(actor);
    if (operator) return { ok: true, role: 'operator', operator };
    const user = `${actor.platform}:${actor.id}`;
    if (this.#access.users.includes(user) || this.#paired?.has(user)) return { ok: true, role: 'user' };
    if (this.#access.chats.includes(chatOf(chat)) || this.#access.chats.includes(chat))
      return { ok: true, role: 'chat_member' };
    return {
      ok: false,
      reason:
        `you are not on this Kazma's access list; ` +
        (this.#access.pairing ? 'write to me in private to get a pairing code for an operator, or ' : '') +
        `an operator can add "${actor.platform}:${actor.id}" to access.users in kazma.yaml`,
    };
  }

  /** Why `actor` may not answer an operator's question (an incident card), or undefined. */
  operatorRefusal(actor: Actor): string | undefined {
    return this.operatorOf(actor) ? undefined : 'only operators may answer this';
  }

  /**
   * Why `actor` may not answer a question card: one that decides like an approval (a clarify card's
   * pick posts the message an approval would have let out; an MCP server's request) under the approval
   * rules, for whoever asked; any other (an incident card) by any operator.
   */
  answerRefusal(actor: Actor, question: { likeApproval: boolean; requester?: Actor | undefined }): string | undefined {
    return question.likeApproval ? this.approvalRefusal(actor, question.requester) : this.operatorRefusal(actor);
  }

  /**
   * Why `actor` may not decide an approval asked for `requester`, or undefined when they may:
   * operators only (narrowed by approvals.approvers), and not the requester themself when
   * approvals.requester_may_approve is false (no requester: nobody to exclude).
   */
  approvalRefusal(actor: Actor, requester: Actor | undefined): string | undefined {
    const operator = this.operatorOf(actor);
    if (!operator) return 'only operators may approve tool calls';
    const approvers = this.#approvals.approvers;
    if (approvers.length > 0 && !approvers.includes(operator.name))
      return `${operator.name} is not in approvals.approvers`;
    if (!this.#approvals.requester_may_approve && requester && this.#samePerson(actor, requester, operator)) {
      return 'approvals.requester_may_approve is false: another operator must decide';
    }
    return undefined;
  }

  #samePerson(actor: Actor, requester: Actor, operator: Operator): boolean {
    if (actor.platform === requester.platform && actor.id === requester.id) return true;
    return this.operatorOf(requester)?.name === operator.name;
  }
}

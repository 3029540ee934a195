// "First decision wins, losers told, every card edited": the one mechanism behind approval gates,
// incident cards and clarify questions. A kind supplies its table's compare-and-set, its audit, its card
// and its loser's wording; this file supplies the order of the steps and the cards' edits.
import type { ChatRef } from '../chat/ref.ts';
import type { SurfaceRegistry } from '../chat/surfaces.ts';
import type { Actor, Card } from '../chat/types.ts';
import type { Db } from '../db/index.ts';
import type { Logger } from '../log/index.ts';
import type { OutboxDispatcher } from '../outbox/index.ts';
import { editOwnedCards, postOwnedCards } from '../outbox/owned-cards.ts';

/** One decision on one question. */
export interface DecisionRequest<D extends string> {
  id: string;
  decision: D;
  actor: Actor;
  reason?: string;
}

/** How an attempt ended, for the kind's audit trail. */
export type AttemptOutcome = 'won' | 'lost' | 'refused' | 'unknown';

/**
 * One kind of question: where its rows live and how they read. `owner` names the kind on the outbox
 * rows of its cards, so every card of a question is found (and edited) by `(owner, id)`.
 */
export interface DecisionKind<Q, D extends string> {
  owner: string;
  /** What a tap on an id nobody knows is told (default: "This question is not known here."). */
  unknownMessage?: string;
  load(id: string): Promise<Q | undefined>;
  /** Still waiting for its first decision. */
  isOpen(question: Q): boolean;
  /** Its state in a word, for the audit trail of a losing attempt. */
  stateOf(question: Q): string;
  /** Why `actor` may not decide (checked before the compare-and-set), or undefined when they may. */
  refusal(question: Q, actor: Actor): string | undefined;
  /**
   * THE compare-and-set: open → decided, in one statement. Output: the question as the statement left
   * it and whether this call moved it. Invariant: of racing calls exactly one gets `won: true`.
   */
  claim(question: Q, request: DecisionRequest<D>): Promise<{ won: boolean; question: Q | undefined }>;
  audit(entry: { id: string; actor?: Actor; decision?: D; outcome: AttemptOutcome; detail?: string }): Promise<void>;
  /** What a loser is told, from the question's real state ("Already decided: … by maya on Slack at 12:03"). */
  lostMessage(question: Q, request: DecisionRequest<D>): string;
  /** The card as the question now stands (buttons while open, the outcome after). */
  card(question: Q): Card;
}

/** The outcome of a decision: the winner gets the question as decided; everyone else why not. */
export type FirstDecision<Q> =
  | { ok: true; question: Q }
  | { ok: false; reason: 'unknown' | 'refused' | 'decided'; message: string; question?: Q };

/** Options for {@link FirstDecisionWins}. */
export interface FirstDecisionWinsOptions {
  db: Db;
  outbox: OutboxDispatcher;
  /** Where losers are answered, privately, in the chat they tapped in. */
  surfaces: SurfaceRegistry;
  logger?: Logger;
}

/**
 * The mechanism. `decide`: load → may this actor? → compare-and-set → audit → edit every card; a loser
 * is answered with the real state and nothing changes. `post` and `editCards` keep every card of a
 * question in the outbox under its owner, so a card posted anywhere, at any time, is edited with the rest.
 */
export class FirstDecisionWins {
  readonly #o: FirstDecisionWinsOptions;

  constructor(options: FirstDecisionWinsOptions) {
    this.#o = options;
  }

  /** `afterWin` runs after the claim and before the cards are edited (e.g. recording an "always" grant). */
  async decide<Q, D extends string>(kind: DecisionKind<Q, D>, request: DecisionRequest<D>, afterWin?: (question: Q) => Promise<void>): Promise<FirstDecision<Q>> {
    const question = await kind.load(request.id);
    if (!question) {
      await kind.audit({ id: request.id, actor: request.actor, decision: request.decision, outcome: 'unknown' });
      return { ok: false, reason: 'unknown', message: kind.unknownMessage ?? 'This question is not known here.' };
    }
    if (!kind.isOpen(question)) return this.#lost(kind, question, request);
    const refusal = kind.refusal(question, request.actor);
    if (refusal) {
      await kind.audit({ id: request.id, actor: request.actor, decision: request.decision, outcome: 'refused', detail: refusal });
      return { ok: false, reason: 'refused', message: `You cannot decide this: ${refusal}.`, question };
    }
    const claimed = await kind.claim(question, request);
    if (!claimed.won || !claimed.question) return this.#lost(kind, claimed.question ?? question, request);
    await kind.audit({ id: request.id, actor: request.actor, decision: request.decision, outcome: 'won', ...(request.reason && { detail: request.reason }) });
    await afterWin?.(claimed.question);
    await this.editCards(kind, request.id, claimed.question);
    return { ok: true, question: claimed.question };
  }

  /** Writes one card row per destination, owned by the question; pass a transaction as `db`. Returns the row ids to dispatch. */
  async post<Q>(db: Db, kind: DecisionKind<Q, string>, id: string, question: Q, destinations: readonly string[]): Promise<string[]> {
    return postOwnedCards(db, { kind: kind.owner, id }, kind.card(question), destinations);
  }

  /** Queues an edit of every card of the question to its current state, and dispatches them. */
  async editCards<Q>(kind: DecisionKind<Q, string>, id: string, question: Q): Promise<void> {
    await this.dispatch(await editOwnedCards(this.#o.db, { kind: kind.owner, id }, kind.card(question)));
  }

  /** Answers `actor` privately in `via` (a loser, a refusal); a failure to answer is logged, not thrown. */
  async tell(via: ChatRef, actor: Actor, text: string): Promise<void> {
    await this.#o.surfaces.replyPrivately(via, actor, text).catch((error: unknown) => this.#o.logger?.error({ err: error, chat: via }, 'could not answer a decision'));
  }

  /** Hands rows to the delivery worker; a failed dispatch is retried by the sweep (the rows are durable). */
  async dispatch(ids: string[]): Promise<void> {
    await this.#o.outbox.dispatch(ids).catch((error: unknown) => this.#o.logger?.warn({ err: error, ids }, 'outbox dispatch failed; the sweep will retry'));
  }

  async #lost<Q, D extends string>(kind: DecisionKind<Q, D>, question: Q, request: DecisionRequest<D>): Promise<FirstDecision<Q>> {
    await kind.audit({ id: request.id, actor: request.actor, decision: request.decision, outcome: 'lost', detail: kind.stateOf(question) });
    return { ok: false, reason: 'decided', message: kind.lostMessage(question, request), question };
  }
}

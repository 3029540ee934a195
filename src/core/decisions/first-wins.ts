// "First decision wins, losers told, every card edited": the one mechanism behind approval gates,
// incident cards and clarify questions. A kind supplies its table's compare-and-set, its audit, its card
// and its loser's wording; this file supplies the order of the steps and the cards' edits.
import type { ChatRef, SurfaceRegistry, Actor, Card, MessageRef, PrivateReplyOptions } from '../surface/index.ts';
import type { Db } from '../db/index.ts';
import type { Logger } from '../log/index.ts';
import { type OutboxDispatcher, editOwnedCards, postOwnedCards, proveTappedCard } from '../outbox/index.ts';
import { alreadyLanded } from './replay.ts';

/** One decision on one question. */
export interface DecisionRequest<D extends string> {
  id: string;
  decision: D;
  actor: Actor;
  reason?: string;
  /**
   * The inbound event the attempt came from (its turn id, `<platform>:<event id>`): run again for the same
   * event (taken up after a stop), it is the same attempt and is not audited twice. None: every call is an
   * attempt of its own (the HTTP API).
   */
  eventKey?: string;
}

/** How an attempt ended, for the kind's audit trail. */
export type AttemptOutcome = 'won' | 'lost' | 'refused' | 'unknown';

/**
 * One kind of question: where its rows live and how they read. `owner` names the kind on the outbox
 * rows of its cards, so every card of a question is found (and edited) by `(owner, id)`. `S` is the
 * question as a caller reads it to route a tap (its immutable parts say who may decide); `Q` is the
 * row the decision statement returns.
 */
export interface DecisionKind<Q, D extends string, S = Q> {
  owner: string;
  /** What a tap on an id nobody knows is told (default: "This question is not known here."). */
  unknownMessage?: string;
  load(id: string): Promise<S | undefined>;
  /** Still waiting for its first decision (as the caller saw it). */
  isOpen(seen: S): boolean;
  /** Why `actor` may not decide (checked before the compare-and-set), or undefined when they may. */
  refusal(seen: S, actor: Actor): string | undefined;
  /**
   * THE decision, in one statement (core/decisions/compare-and-set.ts): open → decided by compare-and-set,
   * the attempt's audit row (won, lost, or unknown) and — for a loser — the row as the winner left it.
   * Output: whether this call moved it, and the question as it stands. Invariant: of racing calls exactly
   * one gets `won: true`, and every attempt has exactly one audit row. `seen`: the question as the caller read it.
   * `counted`: not the decision but a step toward it (one approval of several a policy asks): the cards are
   * edited to show it, and the caller is told `countedMessage`.
   */
  settle(request: DecisionRequest<D>, seen?: S): Promise<{ won: boolean; question: Q | undefined; counted?: boolean }>;
  /** What a counted step's author is told ("Counted: 1 of 2 approvals"). */
  countedMessage?(question: Q, request: DecisionRequest<D>): string;
  /** Records an attempt the statement never ran for (refused, unknown); once per event (`eventKey`). */
  audit(entry: {
    id: string;
    actor?: Actor;
    decision?: D;
    outcome: AttemptOutcome;
    detail?: string;
    eventKey?: string;
  }): Promise<void>;
  /** What a loser is told, from the question's real state ("Already decided: … by maya on Slack at 12:03"). */
  lostMessage(question: Q, request: DecisionRequest<D>): string;
  /** The card as the question now stands (buttons while open, the outcome after). */
  card(question: Q): Card;
}

/** The outcome of a decision: the winner gets the question as decided; everyone else why not. */
export type FirstDecision<Q, S = Q> =
  | { ok: true; question: Q }
  | { ok: false; reason: 'unknown'; message: string }
  | { ok: false; reason: 'refused'; message: string; seen: S }
  | { ok: false; reason: 'decided'; message: string; question: Q }
  | { ok: false; reason: 'counted'; message: string; question: Q }
  /** The same event run again after its decision landed (replay.ts): nothing to tell anyone (`message` is empty). */
  | { ok: false; reason: 'replayed'; message: ''; question: Q };

/** Options of one {@link FirstDecisionWins.decide} call. */
export interface DecideOptions<Q, S> {
  /**
   * The question as the caller just read it (to find the chat queue the tap waits in): spares the
   * decision its own read. Only `isOpen` and `refusal` look at it, and they read what never changes
   * after the question is asked (who asked, which kind) or is only a shortcut (a closed one is lost).
   */
  seen?: S;
  /** Runs after the claim and before the cards are edited (e.g. recording an "always" grant). */
  afterWin?: (question: Q) => Promise<void>;
  /**
   * The card's message the tap came from, when the platform says. A tap proves that card was delivered: a
   * row whose send's answer was lost is recorded as that message (so edits reach it and it is not posted
   * again), and a copy no row names (sent twice) is edited to the question as it stands once it is settled.
   */
  tapped?: MessageRef;
}

/** Options for {@link FirstDecisionWins}. */
export interface FirstDecisionWinsOptions {
  db: Db;
  outbox: OutboxDispatcher;
  /** Where losers are answered, privately, in the chat they tapped in. */
  surfaces: SurfaceRegistry;
  logger?: Logger;
}

/**
 * The mechanism. `decide`: may this actor? → one statement (compare-and-set, audit, the loser's real
 * state) → edit every card; a loser is answered with the real state and nothing changes. `post` and `editCards` keep
 * every card of a question in the outbox under its owner, so a card posted anywhere, at any time, is edited with the
 * rest.
 */
export class FirstDecisionWins {
  readonly #o: FirstDecisionWinsOptions;

  constructor(options: FirstDecisionWinsOptions) {
    this.#o = options;
  }

  /**
   * Round trips: none or one read (none when the caller passes what it `seen`), then ONE statement
   * (kind.settle) for the winner and every loser alike; the winner then queues the card edits.
   */
  async decide<Q, D extends string, S>(
    kind: DecisionKind<Q, D, S>,
    request: DecisionRequest<D>,
    options: DecideOptions<Q, S> = {},
  ): Promise<FirstDecision<Q, S>> {
    const seen = options.seen ?? (await kind.load(request.id));
    const attempt = { id: request.id, actor: request.actor, decision: request.decision, eventKey: request.eventKey };
    if (!seen) {
      await kind.audit({ ...attempt, outcome: 'unknown' });
      return this.#unknown(kind);
    }
    // Who may decide is checked before the compare-and-set; a question already closed is answered as
    // lost (by the statement, with its real state), whoever taps.
    const refusal = kind.isOpen(seen) ? kind.refusal(seen, request.actor) : undefined;
    if (refusal) {
      await kind.audit({ ...attempt, outcome: 'refused', detail: refusal });
      return { ok: false, reason: 'refused', message: `You cannot decide this: ${refusal}.`, seen };
    }
    const proof =
      options.tapped && (await proveTappedCard(this.#o.db, { kind: kind.owner, id: request.id }, options.tapped));
    const settled = await kind.settle(request, seen);
    if (!settled.question) return this.#unknown(kind); // gone since it was read; the statement audited it
    // The decision's edits reach every recorded card; a tapped copy they cannot reach is edited here. So is a
    // card recorded just now of a question already settled: its decision's edit found nothing to edit.
    if (options.tapped && (proof === 'copy' || (proof === 'recorded' && !settled.won)))
      await this.#showOn(options.tapped, kind.card(settled.question));
    if (settled.counted) {
      await this.editCards(kind, request.id, settled.question);
      const message = kind.countedMessage?.(settled.question, request) ?? 'Counted.';
      return { ok: false, reason: 'counted', message, question: settled.question };
    }
    const again = request.eventKey && { kind: kind.owner, id: request.id, eventKey: request.eventKey };
    if (!settled.won && again && (await alreadyLanded(this.#o.db, again)))
      return { ok: false, reason: 'replayed', message: '', question: settled.question };
    if (!settled.won)
      return {
        ok: false,
        reason: 'decided',
        message: kind.lostMessage(settled.question, request),
        question: settled.question,
      };
    await options.afterWin?.(settled.question);
    await this.editCards(kind, request.id, settled.question);
    return { ok: true, question: settled.question };
  }

  /** Edits one card's message directly (not a recorded card: no outbox row names it); a failure is logged. */
  async #showOn(ref: MessageRef, card: Card): Promise<void> {
    await this.#o.surfaces
      .editCard(ref, card)
      .catch((error: unknown) => this.#o.logger?.warn({ err: error, ref }, 'could not edit a tapped card'));
  }

  /**
   * Writes one card row per destination, owned by the question; pass a transaction as `db`. Returns the row ids to
   * dispatch.
   */
  async post<Q>(
    db: Db,
    kind: Pick<DecisionKind<Q, string>, 'owner' | 'card'>,
    id: string,
    question: Q,
    destinations: readonly string[],
  ): Promise<string[]> {
    return postOwnedCards(db, { kind: kind.owner, id }, kind.card(question), destinations);
  }

  /** Queues an edit of every card of the question to its current state, and dispatches them. */
  async editCards<Q>(kind: Pick<DecisionKind<Q, string>, 'owner' | 'card'>, id: string, question: Q): Promise<void> {
    await this.dispatch(await editOwnedCards(this.#o.db, { kind: kind.owner, id }, kind.card(question)));
  }

  /** Answers `actor` privately in `via` (a loser, a refusal); a failure to answer is logged, not thrown. */
  async tell(via: ChatRef, actor: Actor, text: string, options?: PrivateReplyOptions): Promise<void> {
    await this.#o.surfaces
      .replyPrivately(via, actor, text, options)
      .catch((error: unknown) => this.#o.logger?.error({ err: error, chat: via }, 'could not answer a decision'));
  }

  /** Hands rows to the delivery worker; a failed dispatch is retried by the sweep (the rows are durable). */
  async dispatch(ids: string[]): Promise<void> {
    await this.#o.outbox
      .dispatch(ids)
      .catch((error: unknown) =>
        this.#o.logger?.warn({ err: error, ids }, 'outbox dispatch failed; the sweep will retry'),
      );
  }

  #unknown(kind: { unknownMessage?: string }): { ok: false; reason: 'unknown'; message: string } {
    return { ok: false, reason: 'unknown', message: kind.unknownMessage ?? 'This question is not known here.' };
  }
}

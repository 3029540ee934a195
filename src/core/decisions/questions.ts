import { randomBytes } from 'node:crypto';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Actor, MessageRef } from '../surface/index.ts';
import { type Db, decisionQuestions } from '../db/index.ts';
import type { SweepStep } from '../jobs/index.ts';
import type { ActionHandler, RoutedAction } from './actions.ts';
import { DecidedEffects, type DecidedHandler } from './decided-effects.ts';
import type { DecisionKind, FirstDecision } from './first-wins.ts';
import { fromRow, questionKind } from './question-kind.ts';
import type { AskInput, Question, QuestionsOptions } from './question-types.ts';

export type { AskInput, Question, QuestionsOptions } from './question-types.ts';

/**
 * Questions with buttons (incident cards, clarify cards), settled by the shared first-decision-wins
 * mechanism: cards on every destination through the outbox, one winner by compare-and-set, losers told
 * who decided, every card edited; the owning module's handler acts on the winning answer.
 */
export class Questions implements ActionHandler {
  readonly #o: QuestionsOptions;
  readonly #effects: DecidedEffects;
  readonly kind: DecisionKind<Question, string>;
  /** The sweep's step: carries out what decisions past the staleness wait still owe. */
  readonly sweep: SweepStep = { name: 'questions', run: () => this.recoverEffects() };

  constructor(options: QuestionsOptions) {
    this.#o = options;
    this.kind = questionKind(options);
    const { db, decisions, logger } = options;
    this.#effects = new DecidedEffects({
      db,
      read: fromRow,
      editCards: (q) => decisions.editCards(this.kind, q.id, q),
      ...(logger && { logger }),
    });
  }

  /** Registers the module that acts on answers to questions of `kind` (keyed: it may run again after a stop). */
  onDecided(kind: string, handler: DecidedHandler): this {
    this.#effects.on(kind, handler);
    return this;
  }

  /** Records the question and posts its cards (one per destination) through the outbox. */
  async ask(input: AskInput): Promise<Question> {
    const { question, ids } = await this.#o.db.transaction((tx) => this.record(tx, input));
    await this.#o.decisions.dispatch(ids);
    return question;
  }

  /**
   * {@link ask} without the sending, for an owner that records the question in a transaction of its
   * own (with its own row pointing at it): writes the question and its card rows; the caller passes
   * the returned ids to {@link dispatch} once the transaction has committed.
   */
  async record(tx: Db, input: AskInput): Promise<{ question: Question; ids: string[] }> {
    const id = `q${randomBytes(8).toString('base64url')}`;
    const [row] = await tx
      .insert(decisionQuestions)
      .values({
        id,
        kind: input.kind,
        chat: input.chat ?? null,
        title: input.title,
        fields: input.fields ?? [],
        options: input.options,
        subject: input.subject ?? null,
      })
      .returning();
    const question = fromRow(row!);
    return {
      question,
      ids: await this.#o.decisions.post(tx, this.kind, id, question, [...new Set(input.destinations)]),
    };
  }

  /** Sends card rows written by {@link record}. */
  dispatch(ids: string[]): Promise<void> {
    return this.#o.decisions.dispatch(ids);
  }

  /**
   * Settles a question once; the winner's answer goes to its kind's handler. The decision's statement
   * also records the effect as owed, so a stop or a failure before the handler is done leaves it for
   * {@link recoverEffects}.
   */
  async decide(input: {
    id: string;
    decision: string;
    actor: Actor;
    reason?: string;
    seen?: Question;
    /** The inbound event deciding: run again for it, the attempt is not audited twice. */
    eventKey?: string;
    /** The card's message the tap came from (DecideOptions.tapped). */
    tapped?: MessageRef;
  }): Promise<FirstDecision<Question>> {
    const { seen, tapped, ...request } = input;
    const outcome = await this.#o.decisions.decide(this.kind, request, {
      ...(seen?.id === input.id && { seen }),
      ...(tapped && { tapped }),
    });
    if (outcome.ok) await this.#effects.carryOut(outcome.question, input.actor);
    return outcome;
  }

  /**
   * Carries out, once, what decisions untouched since `staleBefore` (default: `effectStaleAfterMs` ago)
   * still owe, their cards edited and their handler run: at start, and as {@link sweep}. Returns how many.
   */
  recoverEffects(options: { staleBefore?: Date } = {}): Promise<number> {
    const staleBefore =
      options.staleBefore ?? new Date(this.#o.clock.now().getTime() - (this.#o.effectStaleAfterMs ?? 60_000));
    return this.#effects.recover({ staleBefore });
  }

  /** Withdraws an open question (the incident recovered by itself); its cards say why. False when already settled. */
  async close(id: string, reason: string): Promise<boolean> {
    const [row] = await this.#o.db
      .update(decisionQuestions)
      .set({ state: 'closed', closedReason: reason, updatedAt: sql`now()` })
      .where(and(eq(decisionQuestions.id, id), eq(decisionQuestions.state, 'open')))
      .returning();
    if (!row) return false;
    await this.#o.decisions.editCards(this.kind, id, fromRow(row));
    return true;
  }

  async get(id: string): Promise<Question | undefined> {
    return this.kind.load(id);
  }

  /** Several questions in one read, by id (a page listing many incidents); an unknown id is left out. */
  async getMany(ids: readonly string[]): Promise<Map<string, Question>> {
    if (ids.length === 0) return new Map();
    const rows = await this.#o.db
      .select()
      .from(decisionQuestions)
      .where(inArray(decisionQuestions.id, [...ids]));
    return new Map(rows.map((row) => [row.id, fromRow(row)]));
  }

  /** A tap on a `q:<id>:<option>` button: decided in the queue of the question's chat, if it has one. */
  async route(actionId: string) {
    const match = /^q:([A-Za-z0-9_-]{1,32}):([a-z0-9_-]{1,16})$/.exec(actionId);
    const question = match && (await this.get(match[1]!));
    if (!match || !question) return undefined;
    return {
      ...(question.chat && { queue: question.chat }),
      run: async ({ actor, via, eventKey, tapped }: Parameters<RoutedAction['run']>[0]) => {
        const outcome = await this.decide({
          id: question.id,
          decision: match[2]!,
          actor,
          seen: question,
          eventKey,
          ...(tapped && { tapped }),
        });
        if (!outcome.ok && outcome.reason !== 'replayed') await this.#o.decisions.tell(via, actor, outcome.message);
      },
    };
  }
}

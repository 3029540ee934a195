import { randomBytes } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { ChatRef, Actor, Card } from '../surface/index.ts';
import type { Clock } from '../clock.ts';
import { type Db, decisionQuestions, questionAudit, type QuestionOption, type QuestionState } from '../db/index.ts';
import type { SweepStep } from '../jobs/index.ts';
import type { Logger } from '../log/index.ts';
import type { ActionHandler } from './actions.ts';
import { decidedBy, storedActor } from './wording.ts';
import { compareAndSet } from './compare-and-set.ts';
import { DecidedEffects, type DecidedHandler } from './decided-effects.ts';
import type { QuestionRow } from './effect-store.ts';
import type { DecisionKind, FirstDecision, FirstDecisionWins } from './first-wins.ts';

/** A question with a fixed set of answers, as its owner and the card see it. */
export interface Question {
  id: string;
  kind: string;
  state: QuestionState;
  chat?: ChatRef;
  title: string;
  fields: Array<{ label: string; value: string }>;
  options: QuestionOption[];
  subject: unknown;
  decision?: string;
  decidedBy?: string;
  decidedPlatform?: string;
  decidedAt?: Date;
  closedReason?: string;
}

/** What {@link Questions.ask} posts. */
export interface AskInput {
  /** The owning module, which registered a handler for it with {@link Questions.onDecided}. */
  kind: string;
  title: string;
  fields?: Array<{ label: string; value: string }>;
  options: QuestionOption[];
  /** Where the question came from; its decision runs in this chat's queue. */
  chat?: ChatRef;
  /** Every chat that gets a card. */
  destinations: readonly ChatRef[];
  /** The owner's own reference, handed back with the decision. */
  subject?: unknown;
}

/** Options for {@link Questions}. */
export interface QuestionsOptions {
  db: Db;
  decisions: FirstDecisionWins;
  /** Why `actor` may not answer questions of this kind, or undefined (operators only, by default). */
  /** Why `actor` may not answer `question`, or undefined when they may (by its kind, and who asked, in its subject). */
  mayDecide: (question: Question, actor: Actor) => string | undefined;
  operatorName: (actor: Actor) => string | undefined;
  clock: Clock;
  logger?: Logger;
  /**
   * How long a decided question's effect may stay owed before the sweep takes it over: longer than any
   * handler runs in a live process (a second run would do nothing new anyway, being keyed). Default 60 s.
   */
  effectStaleAfterMs?: number;
}

const PREFIX = 'q';

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
    this.#effects = new DecidedEffects({ db, read: fromRow, editCards: (q) => decisions.editCards(this.kind, q.id, q), ...(logger && { logger }) });
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
    const [row] = await tx.insert(decisionQuestions).values({
      id, kind: input.kind, chat: input.chat ?? null, title: input.title, fields: input.fields ?? [], options: input.options, subject: input.subject ?? null,
    }).returning();
    const question = fromRow(row!);
    return { question, ids: await this.#o.decisions.post(tx, this.kind, id, question, [...new Set(input.destinations)]) };
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
  async decide(input: { id: string; decision: string; actor: Actor; reason?: string; seen?: Question }): Promise<FirstDecision<Question>> {
    const { seen, ...request } = input;
    const outcome = await this.#o.decisions.decide(this.kind, request, seen?.id === input.id ? { seen } : {});
    if (outcome.ok) await this.#effects.carryOut(outcome.question, input.actor);
    return outcome;
  }

  /**
   * Carries out, once, what decisions untouched since `staleBefore` (default: `effectStaleAfterMs` ago)
   * still owe, their cards edited and their handler run: at start, and as {@link sweep}. Returns how many.
   */
  recoverEffects(options: { staleBefore?: Date } = {}): Promise<number> {
    const staleBefore = options.staleBefore ?? new Date(this.#o.clock.now().getTime() - (this.#o.effectStaleAfterMs ?? 60_000));
    return this.#effects.recover({ staleBefore });
  }

  /** Withdraws an open question (the incident recovered by itself); its cards say why. False when already settled. */
  async close(id: string, reason: string): Promise<boolean> {
    const [row] = await this.#o.db.update(decisionQuestions)
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

  /** A tap on a `q:<id>:<option>` button: decided in the queue of the question's chat, if it has one. */
  async route(actionId: string) {
    const match = /^q:([A-Za-z0-9_-]{1,32}):([a-z0-9_-]{1,16})$/.exec(actionId);
    const question = match && (await this.get(match[1]!));
    if (!match || !question) return undefined;
    return {
      ...(question.chat && { queue: question.chat }),
      run: async ({ actor, via }: { actor: Actor; via: ChatRef }) => {
        const outcome = await this.decide({ id: question.id, decision: match[2]!, actor, seen: question });
        if (!outcome.ok) await this.#o.decisions.tell(via, actor, outcome.message);
      },
    };
  }
}

/** The button id of an answer: `q:<question id>:<option id>`. */
export function questionActionId(id: string, option: string): string {
  return `${PREFIX}:${id}:${option}`;
}

function questionKind({ db, mayDecide, operatorName }: QuestionsOptions): DecisionKind<Question, string> {
  return {
    owner: 'question',
    async load(id) {
      const [row] = await db.select().from(decisionQuestions).where(eq(decisionQuestions.id, id));
      return row && fromRow(row);
    },
    isOpen: (q) => q.state === 'open',
    // Its kind and subject never change after it is asked, so a question read to route the tap will do.
    refusal(q, actor) {
      return mayDecide(q, actor);
    },
    async settle(request) {
      const actor = storedActor(request.actor, operatorName(request.actor));
      const { won, row } = await compareAndSet(db, {
        table: decisionQuestions, idColumn: decisionQuestions.id, stateColumn: decisionQuestions.state, id: request.id, from: 'open', to: 'decided',
        // `effect: 'owed'` in the deciding statement itself: no stop can come between the decision and the record of what it owes.
        set: { decision: request.decision, decidedBy: actor, decidedPlatform: request.actor.platform, decidedAt: sql`now()`, updatedAt: sql`now()`, effect: 'owed' },
        // Only one of its answers decides it; any other leaves it open (the loser is told "not an answer").
        guard: sql`${decisionQuestions.options} @> ${JSON.stringify([{ id: request.decision }])}::jsonb`,
        audit: {
          table: questionAudit, subject: questionAudit.questionId, outcomes: { won: 'won', lost: 'lost', unknown: 'unknown' },
          actor, platform: request.actor.platform, decision: request.decision, ...(request.reason && { detail: request.reason }),
        },
      });
      return { won, question: row && fromRow(row) };
    },
    async audit(entry) {
      const actor = entry.actor && storedActor(entry.actor, operatorName(entry.actor));
      await db.insert(questionAudit).values({
        questionId: entry.id, outcome: entry.outcome, actor: actor ?? null, platform: entry.actor?.platform ?? null,
        decision: entry.decision ?? null, detail: entry.detail ?? null,
      });
    },
    lostMessage(q, request) {
      if (q.state === 'open') return `"${request.decision}" is not an answer to this question.`;
      const line = outcomeLine(q);
      return q.state === 'closed' ? `This question is closed: ${line}.` : `Already decided: ${line}.`;
    },
    card: questionCard,
  };
}

/** THE question card, in any state: the buttons while open, the outcome after. */
export function questionCard(q: Question): Card {
  if (q.state === 'open') {
    return { title: q.title, fields: q.fields, buttons: q.options.map((o) => ({ id: questionActionId(q.id, o.id), label: o.label, style: o.style })) };
  }
  return { title: q.title, fields: q.fields, buttons: [], footer: outcomeLine(q) };
}

function outcomeLine(q: Question): string {
  if (q.state === 'closed') return q.closedReason ?? 'closed';
  const label = q.options.find((o) => o.id === q.decision)?.label ?? q.decision ?? 'decided';
  return `${label} ${decidedBy(q.decidedBy, q.decidedPlatform, q.decidedAt)}`;
}

function fromRow(row: QuestionRow): Question {
  return {
    id: row.id, kind: row.kind, state: row.state, title: row.title, fields: row.fields, options: row.options, subject: row.subject,
    ...(row.chat && { chat: row.chat as ChatRef }),
    ...(row.decision && { decision: row.decision }),
    ...(row.decidedBy && { decidedBy: row.decidedBy.operator ?? row.decidedBy.displayName ?? row.decidedBy.id }),
    ...(row.decidedPlatform && { decidedPlatform: row.decidedPlatform }),
    ...(row.decidedAt && { decidedAt: row.decidedAt }),
    ...(row.closedReason && { closedReason: row.closedReason }),
  };
}

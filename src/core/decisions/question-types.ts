// What a question is, what asking one takes, and what the Questions service is built from.
import type { Clock } from '../clock.ts';
import type { Db, QuestionOption, QuestionState } from '../db/index.ts';
import type { Logger } from '../log/index.ts';
import type { Actor, ChatRef } from '../surface/index.ts';
import type { FirstDecisionWins } from './first-wins.ts';

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

// What a decided question owes its owner (post the clarified message, carry out an incident's Retry),
// carried out at least once and recorded as done. The decision's own statement writes "owed", so a stop
// between the decision and its effect cannot lose the effect: the next start, or the sweep once the
// decision is past its staleness wait, finds it owed and runs the kind's handler again. Handlers are keyed
// (postOnce by the question id, an incident's close by compare-and-set), so a second run sends nothing new.
import type { Actor } from '../surface/index.ts';
import type { Db } from '../db/index.ts';
import type { Logger } from '../log/index.ts';
import { effectDone, owedEffects, takeOverEffect, type QuestionRow } from './effect-store.ts';
import type { Question } from './questions.ts';
import { actorFromStored } from './wording.ts';

/**
 * Acts on the winning decision. Runs once per question in the usual case, and again after a stop or a
 * failure until it returns: it must be keyed, so that a second run does nothing new (write its outbox
 * row under a key from the question's id; move its own row by compare-and-set).
 */
export type DecidedHandler = (question: Question, actor: Actor) => Promise<void>;

/** Options for {@link DecidedEffects}. */
export interface DecidedEffectsOptions {
  db: Db;
  /** The question a row stands for (questions.ts reads its rows). */
  read: (row: QuestionRow) => Question;
  /** Queues the edit of every card of the question to its outcome (a stop may have come before the edits). */
  editCards: (question: Question) => Promise<void>;
  logger?: Logger;
}

/** The handlers of each question kind, and the carrying out of what decisions owe them. */
export class DecidedEffects {
  readonly #o: DecidedEffectsOptions;
  readonly #handlers = new Map<string, DecidedHandler>();

  constructor(options: DecidedEffectsOptions) {
    this.#o = options;
  }

  on(kind: string, handler: DecidedHandler): void {
    this.#handlers.set(kind, handler);
  }

  /**
   * Runs the kind's handler (a kind without one owes nothing), then records the effect done. A handler
   * that throws leaves it owed, for the sweep to try again; the decision itself stands either way, so the
   * failure is logged, not thrown at whoever tapped. True when it was carried out.
   */
  async carryOut(question: Question, actor: Actor): Promise<boolean> {
    try {
      await this.#handlers.get(question.kind)?.(question, actor);
    } catch (error) {
      this.#o.logger?.warn(
        { err: error, question: question.id, kind: question.kind },
        'acting on a decided question failed; it stays owed and the sweep tries again',
      );
      return false;
    }
    // Not recorded: the sweep runs the (keyed) handler again, which does nothing new.
    await effectDone(this.#o.db, question.id).catch((error: unknown) =>
      this.#o.logger?.warn(
        { err: error, question: question.id },
        'a decided question was acted on, but could not be recorded as done; the sweep checks it again',
      ),
    );
    return true;
  }

  /**
   * Carries out what decisions older than `staleBefore` still owe (at start: what the last run left; in
   * the sweep: what a failed handler left). Each is taken over by one process first. Returns how many
   * were carried out.
   */
  async recover({ staleBefore }: { staleBefore: Date }): Promise<number> {
    let done = 0;
    for (const seen of await owedEffects(this.#o.db, staleBefore)) {
      const row = await takeOverEffect(this.#o.db, seen, staleBefore);
      if (!row) continue; // done meanwhile, or another process's sweep has it
      const question = this.#o.read(row);
      this.#o.logger?.warn(
        { question: question.id, kind: question.kind, decision: question.decision },
        'carrying out a decision a stop or a failure left unfinished',
      );
      await this.#o.editCards(question);
      if (await this.carryOut(question, actorFromStored(row.decidedBy))) done += 1;
    }
    return done;
  }
}

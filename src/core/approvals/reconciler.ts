import type { ChatQueues } from '../chat/index.ts';
import { systemClock, type Clock } from '../clock.ts';
import { runQueue } from '../runs/index.ts';
import { resumeOf } from './gate-view.ts';
import type { Logger } from '../log/index.ts';
import type { Meter } from '../metrics/index.ts';
import type { ApprovalBroker, Gate } from './port.ts';

/** What the reconciler needs from the turn runner. */
export interface ResumingRunner {
  waitingOn(threadId: string): Promise<string[]>;
  /** The thread has steps left to run and waits on no question. */
  unfinished(threadId: string): Promise<boolean>;
  resumeClaimed(
    gate: Gate,
    resume: { decision: NonNullable<Gate['decision']>; by?: string; reason?: string },
    options?: { alreadyResuming?: boolean },
  ): Promise<unknown>;
  resumeExpired(gate: Gate): Promise<unknown>;
}

export interface ApprovalReconcilerOptions {
  broker: ApprovalBroker;
  runner: ResumingRunner;
  queues: ChatQueues;
  /** A claimed/resuming gate younger than this may still be in a live process's hands; default 15 s. */
  staleAfterMs: number;
  /** Counts the gates expired here; absent: not counted. */
  meter?: Pick<Meter, 'approvalExpired'>;
  /** Where expiry and staleness read now. Default {@link systemClock}. */
  clock?: Clock;
  logger?: Logger;
}

/**
 * Heals what a crash can leave behind, run at start and by a repeating job: pending gates past their
 * time move to timeout (and their turn is resumed with a denial); a gate claimed or resuming whose
 * process died is resumed once if the checkpoint still waits on its interrupt, settled if the graph
 * moved on after a resume, and marked error otherwise. Work runs in the gate's chat queue, in order
 * with that chat's turns.
 */
export class ApprovalReconciler {
  readonly #o: ApprovalReconcilerOptions;

  constructor(options: ApprovalReconcilerOptions) {
    this.#o = options;
  }

  async sweep(): Promise<{ expired: number; healed: number }> {
    const now = (this.#o.clock ?? systemClock).now();
    const expired = await this.#o.broker.expire(now);
    // broker.expire moved them to `timeout` by compare-and-set: each is counted by one process only.
    if (expired.length > 0) this.#o.meter?.approvalExpired(expired.length);
    const work = expired.map((gate) => this.#o.queues.run(runQueue(gate), () => this.#o.runner.resumeExpired(gate)));
    // Stale by the last change or heartbeat, not by the decision time: a long live resume keeps beating.
    const staleBefore = new Date(now.getTime() - this.#o.staleAfterMs);
    const stuck = await this.#o.broker.list({ states: ['claimed', 'resuming'] });
    const stale = stuck.filter((gate) => gate.updatedAt <= staleBefore);
    work.push(...stale.map((gate) => this.#o.queues.run(runQueue(gate), () => this.#heal(gate, staleBefore))));
    await Promise.all(
      work.map((w) =>
        w.catch((error: unknown) => this.#o.logger?.error({ err: error }, 'approval reconcile step failed')),
      ),
    );
    return { expired: expired.length, healed: stale.length };
  }

  async #heal(stale: Gate, staleBefore: Date): Promise<void> {
    const gate = await this.#o.broker.get(stale.gateId); // it may have moved since it was listed
    if (!gate || (gate.state !== 'claimed' && gate.state !== 'resuming') || !gate.decision) return;
    // One sweep, in one process, takes the gate over; a live resume's heartbeat keeps it out of reach.
    if (!(await this.#o.broker.takeOver(gate, staleBefore))) return;
    const waiting = (await this.#o.runner.waitingOn(gate.threadId)).includes(gate.interruptId);
    // A stop mid-resume after the decided call ran: the run goes on from its checkpoint (its answer, or the
    // words it was writing when stopped, come once; resumeClaimed).
    const cutShort = !waiting && gate.state === 'resuming' && (await this.#o.runner.unfinished(gate.threadId));
    this.#o.logger?.warn(
      { gate: gate.gateId, state: gate.state, waiting },
      'healing an approval left behind by a stop',
    );
    if (waiting || cutShort) {
      await this.#o.runner.resumeClaimed(gate, resumeOf(gate, gate.decision), {
        alreadyResuming: gate.state === 'resuming',
      });
      return;
    }
    if (gate.state === 'resuming') return this.#o.broker.settle(gate.gateId);
    await this.#o.broker.fail(gate.gateId, 'the conversation moved on before this decision could be applied');
  }
}

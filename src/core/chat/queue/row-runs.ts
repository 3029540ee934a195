import type { AheadLease, ChatLeases, RowEnd, ThreadLease } from '../../turns/index.ts';
import type { InboxRow } from '../inbox/inbox.ts';
import type { RowEndsAlone } from '../inbox/row-ends-alone.ts';
import type { PipelineOutcome } from '../intake/pipeline-types.ts';
import type { ChatWaiters } from './chat-waiters.ts';
import { TurnHandOffs, type OrderedWork } from './turn-hand-offs.ts';

/** A row run whose end waits for the next listing, which writes it in the same statement. */
export interface Ran {
  row: InboxRow;
  outcome: PipelineOutcome;
  ending: { row: RowEnd; lease?: ThreadLease };
}

/** The chat-turn steps after a row is taken: run it, then end it (folded into the next listing, or alone). */
export class RowRuns {
  readonly #o: { alone: RowEndsAlone; waiting: ChatWaiters; leases: ChatLeases };

  constructor(options: { alone: RowEndsAlone; waiting: ChatWaiters; leases: ChatLeases }) {
    this.#o = options;
  }

  /**
   * Runs a taken row. The turn's thread lease and the replies it sent are handed off as its run ends:
   * with the row's end folded into the next listing (returned as `ran`), or let go and written now.
   * `ahead`: the thread lease taken with the row (ChatLeases.acquireListing), handed to its run; let go
   * with the row's end when the run did not claim it.
   */
  async run(
    chat: string,
    next: { row: InboxRow; work: OrderedWork },
    taken: InboxRow,
    ahead?: AheadLease,
  ): Promise<{ outcome: PipelineOutcome; ran?: Ran }> {
    const { alone, waiting, leases } = this.#o;
    const handed = new TurnHandOffs(ahead);
    const result = await next.work.run(taken, handed).finally(() => handed.close());
    const { outcome } = result;
    const end = result.end && handed.ending(result.end);
    // The thread lease taken with the row goes as a handed-off one, if its run did not claim it.
    await alone.letGo(handed.unused(ahead?.claim()));
    if (end && leases.listReleasing && outcome !== 'stopping') {
      return {
        outcome,
        ran: { row: next.row, outcome, ending: { row: end, ...(handed.lease && { lease: handed.lease }) } },
      };
    }
    await alone.letGo(handed.lease);
    if (end) await alone.end(end);
    else await alone.recordSent(handed.sent);
    waiting.settle(chat, next.row, outcome);
    return { outcome };
  }

  /**
   * As the chat's lease goes: a thread lease taken with a row that never ran (`ahead`), and a row whose
   * ending listing never came.
   */
  async endUnfinished(chat: string, ran: Ran | undefined, ahead: AheadLease | undefined): Promise<void> {
    const { alone, waiting } = this.#o;
    await alone.letGo(ahead?.claim());
    if (!ran) return;
    await alone.letGo(ran.ending.lease);
    await alone.end(ran.ending.row);
    waiting.settle(chat, ran.row, ran.outcome);
  }
}

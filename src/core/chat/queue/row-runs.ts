import type { ChatLeases, RowEnd, ThreadLease } from '../../turns/index.ts';
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
   */
  async run(
    chat: string,
    next: { row: InboxRow; work: OrderedWork },
    taken: InboxRow,
  ): Promise<{ outcome: PipelineOutcome; ran?: Ran }> {
    const { alone, waiting, leases } = this.#o;
    const handed = new TurnHandOffs();
    const result = await next.work.run(taken, handed).finally(() => handed.close());
    const { outcome } = result;
    const end = result.end && handed.ending(result.end);
    // The thread lease taken with the row (the chat's lease statement) goes as a handed-off one, if unused.
    await alone.letGo(handed.unused(leases.takeAhead?.(chat)));
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

  /** As the lease goes: a thread lease taken with a row that never ran, and a row whose ending listing never came. */
  async endUnfinished(chat: string, ran: Ran | undefined): Promise<void> {
    const { alone, waiting, leases } = this.#o;
    await alone.letGo(leases.takeAhead?.(chat));
    if (!ran) return;
    await alone.letGo(ran.ending.lease);
    await alone.end(ran.ending.row);
    waiting.settle(chat, ran.row, ran.outcome);
  }
}

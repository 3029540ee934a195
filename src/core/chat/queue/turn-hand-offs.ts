// What a chat's turn hands to the statement that ends its inbox row (ChatTurns): its thread's lease, to
// be let go there, and the replies it sent, to be recorded as sent there. Accepted only while the turn
// runs; once it has ended, a hand-off is declined and its holder does the work itself. It also carries
// the other way the thread lease taken with the row (`ahead`), for the turn to claim.
import type { AheadLease, LeaseHandOff, ThreadLease, RowEnd } from '../../turns/index.ts';
import type { SentHandOff, SentReply } from '../../outbox/index.ts';
import type { InboxRow } from '../inbox/inbox.ts';
import type { PipelineOutcome } from '../intake/pipeline-types.ts';

/** A row's work, when it takes its turn in its chat's order. */
export interface OrderedWork {
  /**
   * Runs the work of the row this process has just taken: what became of it ('stopping' when shutdown cut
   * it short), and how the row ends — which ChatTurns writes, folded into the chat's next listing where the
   * leases can (ChatLeases.listReleasing). No `end`: the row stays as it is (a shutdown leaves it running).
   * A thread lease handed off (`handOff`) is let go with the row's end, and replies handed off
   * (`sentHandOff`) are recorded as sent with it. `ahead`: the thread lease taken with the row, when one was.
   */
  run(
    taken: InboxRow,
    options: { handOff: LeaseHandOff; sentHandOff: SentHandOff; ahead?: AheadLease },
  ): Promise<{ outcome: PipelineOutcome; end?: RowEnd }>;
}

export class TurnHandOffs {
  /** The turn's thread lease; only one (a second is declined, and its holder lets it go). */
  lease: ThreadLease | undefined;
  readonly sent: SentReply[] = [];
  /** The thread lease taken with the row, for the turn to claim (ThreadLeases.runOnChat). */
  readonly ahead: AheadLease | undefined;
  #open = true;

  constructor(ahead?: AheadLease) {
    this.ahead = ahead;
  }

  readonly handOff = (held: ThreadLease): boolean => this.#open && !this.lease && (this.lease = held) !== undefined;
  readonly sentHandOff = (reply: SentReply): boolean => this.#open && this.sent.push(reply) > 0;

  /**
   * The thread lease taken with the row (AheadLease) when the row's run did not claim it: let go
   * with the row's end, as a handed-off one is. Returned when a lease was handed off already: the caller
   * lets it go.
   */
  unused(lease: ThreadLease | undefined): ThreadLease | undefined {
    if (this.lease) return lease;
    this.lease = lease;
    return undefined;
  }

  /** The turn has ended: later hand-offs are declined. */
  close(): void {
    this.#open = false;
  }

  /** The row's end, carrying the replies sent. */
  ending(end: RowEnd): RowEnd {
    return this.sent.length > 0 ? { ...end, sent: this.sent } : end;
  }
}

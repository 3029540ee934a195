// What ChatTurns (chat-turns.ts) is built from, with the defaults it falls back on.
import type { Clock } from '../../clock.ts';
import type { Logger } from '../../log/index.ts';
import type { ChatLeases } from '../../turns/index.ts';
import type { Inbox, InboxRow } from '../inbox/inbox.ts';
import type { OrderedWork } from './turn-hand-offs.ts';

/** Options for ChatTurns. */
export interface ChatTurnsOptions {
  inbox: Pick<Inbox, 'owner' | 'take' | 'taken' | 'unfinishedOf' | 'unfinishedTakingOf' | 'end' | 'recordSent'>;
  /** The work of a row, or undefined when it does not wait its turn (e.g. /status): whoever recorded it runs it. */
  plan: (row: InboxRow) => Promise<OrderedWork | undefined>;
  /** Across processes (PostgreSQL); default: within this process only, enough for the embedded database. */
  leases?: ChatLeases;
  /** How often a held lease is renewed; default 5 s (a third of `turns.lease_ttl`, the lease's life). */
  renewMs?: number;
  /** A running row untouched this long was left by a stopped process; default 15 s (`turns.lease_ttl`). */
  staleAfterMs?: number;
  /** Where "`staleAfterMs` ago" is read from; default systemClock. */
  clock?: Clock;
  /** Pauses between tries for a lease another process holds, doubling; default 10 ms up to 250 ms. */
  poll?: { minMs: number; maxMs: number };
  /** Keeps shutdown waiting for a chat's session (ChatQueues.track). */
  track?: (work: Promise<unknown>) => void;
  logger?: Logger;
}

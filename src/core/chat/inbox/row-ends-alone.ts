// What a chat's last listing writes with a row's end (chat-lease-statements.ts), written in statements of
// their own: when that listing failed, or when none carries it (the embedded database, a shutdown).
import type { ThreadLease, ChatLeases, RowEnd } from '../../turns/index.ts';
import type { Logger } from '../../log/index.ts';
import type { SentReply } from '../../outbox/index.ts';
import type { Inbox } from './inbox.ts';

export interface RowEndsAloneOptions {
  inbox: Pick<Inbox, 'end' | 'recordSent'>;
  leases: Pick<ChatLeases, 'release'>;
  logger?: Logger | undefined;
}

/** Each failure is logged, never thrown: what it leaves behind is taken up again, and nothing is sent twice. */
export class RowEndsAlone {
  readonly #o: RowEndsAloneOptions;

  constructor(options: RowEndsAloneOptions) {
    this.#o = options;
  }

  /**
   * Ends a row (and records its sent replies). On failure the row stays running, and is taken up again as a stopped
   * turn is (finding it done).
   */
  async end(end: RowEnd): Promise<void> {
    await this.#o.inbox.end(end).catch((error: unknown) => {
      this.#o.logger?.error(
        { err: error, platform: end.key.platform, event: end.key.eventId, replies: end.sent?.length ?? 0 },
        'could not mark an inbound event finished (nor its sent replies sent); it will be taken up again, and no ' +
          'reply is sent twice',
      );
    });
  }

  /** Records replies sent by a turn whose row was left running (a shutdown cut it short); never resends. */
  async recordSent(sent: readonly SentReply[]): Promise<void> {
    await this.#o.inbox.recordSent(sent).catch((error: unknown) => {
      this.#o.logger?.error(
        { err: error, replies: sent.length },
        'replies were sent, but could not be recorded as sent; they stay "sending" (later "delivery unknown") and ' +
          'are not sent again',
      );
    });
  }

  /** Lets go of a thread lease a turn handed off (it lapses on its own should this fail). */
  async letGo(handed: ThreadLease | undefined): Promise<void> {
    if (handed) await this.#o.leases.release(handed.threadId, handed.holder).catch(() => undefined);
  }
}

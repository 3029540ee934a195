import { sql } from 'drizzle-orm';
import type { ChatRef, Message, MessageRef, OutboundFile, SurfaceRegistry } from '../surface/index.ts';
import { onLiveConnection, type Db, builtOnce, outbox } from '../db/index.ts';
import type { Logger } from '../log/index.ts';
import { systemClock, type Clock } from '../clock.ts';
import { deliverOutbox } from './deliver.ts';
import { endDraft } from './drafts.ts';
import type { OutboxDispatcher } from './port.ts';
import { REPLY_STATE } from './chat-order.ts';
import { recordSent, type SentHandOff, type SentReply } from './sent-marks.ts';
import { endedSend, firstPart, SendTakenOverError, sendProgress, takeOverSend } from './parts.ts';
import { getOutbox, moveOutbox, settleFailedSend, STOPPED_WHILE_SENDING, type OutboxRow } from './store.ts';

// A turn's every reply runs this: built once (values as placeholders, each encoded by its column).
const insertReply = (db: Db) =>
  builtOnce(db, 'outbox.insertReply', (handle) =>
    handle
      .insert(outbox)
      .values({
        id: placeholder('id'),
        kind: 'message',
        destination: placeholder('destination'),
        payload: placeholder('payload'),
        state: REPLY_STATE as never,
        attempts: sql`(case when ${REPLY_STATE} = 'pending' then 0 else 1 end)` as never,
      })
      .onConflictDoNothing({ target: outbox.id })
      .returning()
      .prepare('outbox_insert_reply'),
  );

/** A placeholder where drizzle's types want the column's value type. */
const placeholder = (name: string) => sql.placeholder(name) as never;

/** The messages showing a reply's text as the model wrote it (a streamed draft, one per part), if any do. */
export type DraftFor = (text: string) => readonly MessageRef[] | undefined;

/** One reply of a turn: `key` is the id of the message it comes from, stable across restarts. */
export interface Reply {
  key: string;
  text: string;
  /** A file sent with the text (its caption): `send_file`. */
  file?: OutboundFile;
}

/** Options for {@link ReplyOutbox}. */
export interface ReplyOutboxOptions {
  db: Db;
  surfaces: SurfaceRegistry;
  /** Retries what could not be sent at once (the BullMQ outbox worker). */
  dispatcher: OutboxDispatcher;
  /** Where a reply's `sent_at` is read from; default {@link systemClock}. */
  clock?: Clock;
  logger?: Logger;
}

/**
 * Sends a turn's replies through the outbox, so a reply is written before it is sent and sent once:
 * the row's id comes from the reply's message id, so delivering the same turn again after a crash
 * finds the rows already there and sends only what never went out. A row is written as `sending`
 * and sent at once (two statements, in order, while the chat's turn still holds its queue); a send
 * the platform refuses goes back to `pending` for the outbox worker's retries, with every later reply
 * of the turn behind it. A crash mid-send leaves `sending`: "delivery unknown" rather than sent twice,
 * except a message in several parts, which goes on after the parts the platform took (parts.ts).
 */
export class ReplyOutbox {
  readonly #o: ReplyOutboxOptions;
  readonly #clock: Clock;

  constructor(options: ReplyOutboxOptions) {
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
  }

  /**
   * `handOff`: takes over recording each reply that went out as sent (a chat's turn: the statement that
   * ends its inbox row, sent-marks.ts); a reply it declines is recorded at once. `draftFor`: the message
   * already showing a reply as the model wrote it (core/streaming), which its first send edits instead
   * of posting a second message.
   */
  async deliver(
    chat: ChatRef,
    replies: readonly Reply[],
    options: { handOff?: SentHandOff; draftFor?: DraftFor } = {},
  ): Promise<void> {
    // Once one reply waits for a retry, the rest wait behind it, as they do behind any older post to the
    // chat still to be delivered (chat-order.ts): the worker sends them in order.
    let queued = false;
    const mine: string[] = [];
    const handOff = options.handOff;
    const own = handOff && { handOff: (sent: SentReply) => handOff(sent) && mine.push(sent.id) > 0 };
    for (const reply of replies) {
      const id = replyOutboxId(reply.key);
      const draft = queued ? undefined : options.draftFor?.(reply.text);
      // The draft is this reply's before its row exists: a crash in between leaves the draft as it was and
      // the reply sent anew, never the answer edited into the draft and then called interrupted (drafts.ts).
      for (const ref of draft ?? []) await endDraft(this.#o.db, ref, `taken over by the reply ${id}`);
      const [row] = await insertReply(this.#o.db).execute({
        id,
        destination: chat,
        payload: { text: reply.text, ...(reply.file && { file: reply.file }) },
        state: queued ? 'pending' : 'sending',
        mine: JSON.stringify(mine),
      });
      if (!row) queued = (await this.#again(chat, id, own ?? {})) || queued;
      else if (row.state === 'pending') {
        await this.#o.dispatcher.dispatch([id]);
        queued = true;
      } else queued = await this.#send(chat, row as OutboxRow, { ...own, draft });
    }
  }

  /**
   * A reply an earlier run of this turn wrote; true when it is left to the worker. A pending one is sent
   * now. One still `sending` under the turn's own first attempt (never handed to the worker) was being
   * sent by a run that stopped — the turn is taken up again only once that run's lease lapsed: a message
   * in several parts goes on after the parts the platform took (or is recorded sent when it took all),
   * anything else is "delivery unknown" now rather than after the recovery's wait.
   */
  async #again(chat: ChatRef, id: string, options: { handOff?: SentHandOff }): Promise<boolean> {
    const row = await getOutbox(this.#o.db, id);
    if (row?.state === 'pending') return this.#sendPending(id);
    if (row?.state !== 'sending' || row.attempts !== 1) return false;
    const ended = endedSend(row);
    if (ended === 'unknown') {
      await moveOutbox(this.#o.db, id, 'sending', 'unknown', { lastError: STOPPED_WHILE_SENDING });
      return false;
    }
    if (ended === 'sent') {
      const sent = { id, ref: firstPart(row), sentAt: this.#clock.now() };
      if (!options.handOff?.(sent)) await this.#recordSent(chat, id, sent.ref);
      return false;
    }
    const taken = await takeOverSend(this.#o.db, id, row.attempts);
    if (!taken) return false;
    this.#o.logger?.info({ chat, outbox: id }, 'a reply cut short by a stop goes on after the parts that went out');
    return this.#send(chat, taken, options);
  }

  /**
   * Sends a row this turn holds in `sending`; true when a refusal left it to the worker's retries. `draft`:
   * the streamed draft its first part is edited into.
   */
  async #send(
    chat: ChatRef,
    row: OutboxRow,
    options: { handOff?: SentHandOff; draft?: readonly MessageRef[] | undefined },
  ): Promise<boolean> {
    const { id } = row;
    let ref: MessageRef | undefined;
    const draft = options.draft;
    try {
      ref = await this.#o.surfaces.send(chat, row.payload as Message, {
        ...sendProgress(this.#o.db, row),
        ...(draft && { draft }),
      });
    } catch (error) {
      if (error instanceof SendTakenOverError) {
        this.#o.logger?.warn({ chat, outbox: id }, 'a later run of this turn took over sending this reply');
        return false;
      }
      if ((await settleFailedSend(this.#o.db, id, error)) === 'failed') {
        this.#o.logger?.error(
          { err: error, chat, outbox: id },
          'a reply was refused for good by the platform; it is marked failed, not retried',
        );
        return false;
      }
      this.#o.logger?.warn(
        { err: error, chat, outbox: id },
        'a reply could not be sent at once; the outbox worker retries it',
      );
      await this.#o.dispatcher.dispatch([id]);
      return true;
    }
    if (!options.handOff?.({ id, ref, sentAt: this.#clock.now() })) await this.#recordSent(chat, id, ref);
    return false;
  }

  /**
   * sending → sent, after the platform took the reply. Never undone into a retry: a reply that went out
   * must not go out again. A row that cannot be marked stays `sending`, which the outbox recovery calls
   * "delivery unknown"; either way the log says what happened.
   */
  async #recordSent(chat: ChatRef, id: string, ref: MessageRef | undefined): Promise<void> {
    try {
      const moved = await onLiveConnection(() => recordSent(this.#o.db, [{ id, ref, sentAt: this.#clock.now() }]));
      if (moved.length === 0)
        this.#o.logger?.warn(
          { chat, outbox: id },
          'a reply was sent, but its outbox row was no longer "sending" (marked by an earlier try whose answer was ' +
            'lost, or called "delivery unknown" by the recovery); it is not sent again',
        );
    } catch (error) {
      this.#o.logger?.error(
        { err: error, chat, outbox: id },
        'a reply was sent, but could not be recorded as sent; it stays "sending" (later "delivery unknown") and is ' +
          'not sent again',
      );
    }
  }

  /** Sends a pending row now; true when it had to be left to the worker. */
  async #sendPending(id: string): Promise<boolean> {
    try {
      await deliverOutbox(this.#o.db, this.#o.surfaces, id, this.#clock);
      return false;
    } catch {
      await this.#o.dispatcher.dispatch([id]);
      return true;
    }
  }
}

/** The outbox id of a reply: one row per model message, whatever retries happen. */
export function replyOutboxId(messageKey: string): string {
  return `reply_${messageKey}`;
}

// Every button tap (callback query) must be answered, or the tapper's client spins. The core never sees
// a callback query; it speaks in two ways this registry turns into answers:
//  - Surface.replyPrivately(chat, actor, text)  -> the oldest open query of that person in that chat
//    gets `text` as an alert (refusals, "already approved by …");
//  - Surface.editCard(ref, settled card)        -> the oldest open query on that card message gets the
//    card's footer ("Approved once by Maya"): the decisions of one chat run one at a time, so the
//    earlier taps on it were already answered and the oldest open one is the tap that won.
// Whatever is still open when the pipeline has handled the tap, or after `timeoutMs`, gets a short
// neutral answer so no spinner is left behind.

/** Answers one callback query; resolves false when Telegram no longer accepts an answer to it. */
export type AnswerFn = (queryId: string, answer: { text: string; alert: boolean }) => Promise<boolean>;

interface OpenQuery {
  id: string;
  chatId: string;
  actorId: string;
  /** `<chat id>/<message id>` of the tapped message. */
  messageKey: string | undefined;
  timer: NodeJS.Timeout;
}

/** Telegram shows at most 200 characters in a callback answer. */
export const ANSWER_MAX_CHARS = 200;

/** `text` cut to Telegram's limit on whole code points, with an ellipsis when cut. */
export function fitAnswer(text: string): string {
  const points = [...text];
  return points.length <= ANSWER_MAX_CHARS ? text : `${points.slice(0, ANSWER_MAX_CHARS - 1).join('')}…`;
}

export class CallbackAnswers {
  readonly #open: OpenQuery[] = [];
  readonly #answer: AnswerFn;
  readonly #timeoutMs: number;

  /** `timeoutMs`: how long a query may wait for the core before a neutral answer; default 8 s. */
  constructor(options: { answer: AnswerFn; timeoutMs?: number }) {
    this.#answer = options.answer;
    this.#timeoutMs = options.timeoutMs ?? 8000;
  }

  /** A tap arrived: remember its query until something answers it. */
  open(query: { id: string; chatId: string; actorId: string; messageKey?: string }): void {
    const timer = setTimeout(
      () => void this.#settle((q) => q.id === query.id, { text: '', alert: false }),
      this.#timeoutMs,
    );
    timer.unref();
    this.#open.push({ ...query, messageKey: query.messageKey, timer });
  }

  /** Private text for `actorId` in `chatId`: answers their oldest open query; false when none is open. */
  privately(chatId: string, actorId: string, text: string): Promise<boolean> {
    return this.#settle((q) => q.chatId === chatId && q.actorId === actorId, { text: fitAnswer(text), alert: true });
  }

  /** A card message was settled: its oldest open query (the winning tap) learns the outcome. */
  settled(messageKey: string, text: string): Promise<boolean> {
    return this.#settle((q) => q.messageKey === messageKey, { text: fitAnswer(text), alert: false });
  }

  /** The pipeline is done with this tap: answer it now if nothing else did. */
  async finish(queryId: string, text = ''): Promise<void> {
    await this.#settle((q) => q.id === queryId, { text: fitAnswer(text), alert: false });
  }

  /** Answers a query that was never opened (a tap Kazma does not act on), so its spinner stops. */
  async answerNow(queryId: string, text = ''): Promise<void> {
    await this.#answer(queryId, { text: fitAnswer(text), alert: false });
  }

  /** Queries not yet answered (for shutdown logs and tests). */
  get size(): number {
    return this.#open.length;
  }

  async #settle(match: (q: OpenQuery) => boolean, answer: { text: string; alert: boolean }): Promise<boolean> {
    const index = this.#open.findIndex(match);
    if (index === -1) return false;
    // Taken out before the call: two answers to one query would be an error from Telegram.
    const [query] = this.#open.splice(index, 1);
    clearTimeout(query!.timer);
    return this.#answer(query!.id, answer);
  }
}

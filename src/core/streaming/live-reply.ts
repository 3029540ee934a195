// One turn's answer shown while the model writes it, in one chat. Each model call that writes words gets a
// draft message of its own (posted once the turn has run `startAfterMs`, then edited at most every
// `editIntervalMs`: the platform's flood limits); the final answer replaces the draft through the outbox
// (draftFor), so one answer is one message. Edits run one at a time, latest text only: a slow edit (a
// 429 honoured by waiting in the adapter) delays the next one and never reorders them.
import { randomBytes } from 'node:crypto';
import type { MessageRef, PartialAnswer } from '../surface/index.ts';
import { closePartial } from '../surface/index.ts';
import { after } from './after.ts';
import { type Draft, nextToShow } from './draft.ts';
import { fallbackTakesOver, type LiveReplyOptions } from './live-reply-options.ts';
import { toolProgressLine, type ToolStarted } from './progress-line.ts';

export class LiveReply {
  readonly #o: LiveReplyOptions;
  readonly #began = performance.now();
  readonly #drafts: Draft[] = [];
  #current: Draft | undefined;
  #shownAt = Number.NEGATIVE_INFINITY;
  /** The next show: a timer, or an immediate when it is due already (a 0 ms timer sleeps 1 ms: a wake-up). */
  #timer: { cancel(): void } | undefined;
  /** Runs the next show (LiveReplyOptions.after, else after.ts). */
  readonly #after: NonNullable<LiveReplyOptions['after']>;
  /** The reader of a call being written (AnswerWords.reader): a draft falling due has its words read first. */
  #reader: { call: string; readNow: () => void } | undefined;
  /** The edit under way (one at a time: a slow one, a 429 waited out, delays the next, never reorders). */
  #edits: Promise<void> = Promise.resolve();
  #showing = false;
  #closed = false;

  constructor(options: LiveReplyOptions) {
    this.#o = options;
    this.#after = options.after ?? after;
  }

  /**
   * A model call began. After a call that failed (a retry, or a fallback taking over) or wrote nothing,
   * its draft is written again; after one that wrote words, those stay in their own draft.
   */
  begin(call: string): void {
    const current = this.#current;
    if (current && (current.text === '' || current.failed))
      Object.assign(current, { call, text: '', failed: false, ended: false });
    else this.#current = this.#push(call);
  }

  /** Its words are shown at most once an edit interval: told more often, they wait for the next edit. */
  get readEveryMs(): number {
    return this.#o.editIntervalMs;
  }

  /** Words the model wrote in `call`. */
  write(call: string, words: string): void {
    const current = this.#current;
    if (this.#closed || !current || current.call !== call || words === '') return;
    current.text += words;
    this.#schedule();
  }

  /**
   * A tool began: a draft with no words yet (or a new one after words already shown) shows what it does
   * (toolProgressLine) until the model writes again, which replaces it in place.
   */
  progress(call: ToolStarted): void {
    if (this.#closed) return;
    const reuse = this.#current?.text === '' ? this.#current : undefined;
    const current = reuse ?? (this.#current = this.#push(this.#current?.call ?? ''));
    current.status = toolProgressLine(call, this.#o.secrets);
    this.#schedule();
  }

  /**
   * The model failed, and the fallback `model` takes over: a failed call's words already in a message stay there,
   * closed, with a line saying so, and the fallback's answer starts a message of its own. (Words only in a
   * preview, which does not stay, or not shown yet, are written over as a retry's are: the answer says which model
   * gave it.)
   */
  fallback(model: string): void {
    const current = this.#current;
    if (this.#closed || !current?.failed || current.text.trim() === '') return;
    if (!current.refs || current.refs.some((ref) => ref.preview)) return;
    current.text = `${closePartial(current.text.trimEnd())}\n\n${fallbackTakesOver(model)}`;
    current.kept = true;
    current.ended = true;
    this.#current = undefined;
    this.#schedule();
  }

  /** `call`'s words can be read now (AnswerWords.reader). */
  reader(call: string, readNow: () => void): void {
    this.#reader = { call, readNow };
  }

  /** A model call failed: what was shown stays until a retry or a fallback writes again (begin). */
  failed(call: string): void {
    const current = this.#current;
    if (current?.call === call) current.failed = true;
  }

  /** A model call ended: its words are in the conversation now, not cut short. */
  ended(call: string): void {
    const current = this.#current;
    if (current?.call === call) current.ended = true;
  }

  /**
   * The words of the call still being written when the turn was stopped (its formatting closed), and the
   * draft showing them, once: a stopped turn's notice is appended to them. Call after {@link close}.
   */
  unfinished(): { text: string; refs?: MessageRef[] } | undefined {
    const draft = this.#current;
    if (!draft || draft.ended || draft.used || draft.text.trim() === '') return undefined;
    draft.used = true;
    return { text: closePartial(draft.text.trimEnd()), ...(draft.refs && { refs: draft.refs }) };
  }

  /** No more drafts: waits for the edit under way, so the final answer is the last word. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#timer?.cancel();
    this.#timer = undefined;
    await this.#edits;
  }

  /**
   * The drive ended (answered, asked, stopped or failed, not cut short by a stop of the process): the drafts
   * nothing took over stay as they are shown, and their records are ended, so a draft still recorded open
   * is one a drive that died left half-written. Call after the replies were delivered.
   */
  async done(): Promise<void> {
    const left = this.#drafts
      .filter((d) => !d.used)
      .flatMap((d): Array<{ ref?: MessageRef; key?: string }> => {
        const refs = (d.refs ?? []).filter((ref) => !ref.preview).map((ref) => ({ ref }));
        return refs.length > 0 || !d.reserved ? refs : [{ key: d.reserved.delivery }];
      });
    if (left.length === 0 || !this.#o.release) return;
    try {
      await this.#o.release(left);
    } catch (error) {
      // Left open, a later crash of this turn would call them interrupted; nothing else is at stake.
      this.#o.logger?.warn({ err: error, chat: this.#o.chat }, 'could not end the records of drafts a drive left');
    }
  }

  /** The messages of the draft showing `text`'s beginning, once: the final answer is edited into them. */
  draftFor(text: string): MessageRef[] | undefined {
    const draft = this.#drafts.find((d) => !d.used && !d.failed && d.refs && d.text !== '' && text.startsWith(d.text));
    if (!draft) return undefined;
    draft.used = true;
    return draft.refs;
  }

  #push(call: string): Draft {
    const draft: Draft = { call, text: '', shown: '', used: false, failed: false, ended: false };
    this.#drafts.push(draft);
    return draft;
  }

  /**
   * The next edit, an interval after the last one ended; none while one is under way (it reschedules), nor
   * while nothing new waits to be shown (each wake-up costs a turn CPU, for an edit that would do nothing).
   */
  #schedule(): void {
    if (this.#timer || this.#showing || this.#closed || !nextToShow(this.#drafts, this.#current)) return;
    const wait =
      Math.max(this.#began + this.#o.startAfterMs, this.#shownAt + this.#o.editIntervalMs) - performance.now();
    this.#timer = this.#after(wait, () => this.#show());
  }

  /** Reserves the record of `draft`'s first message, once (a reservation a failed post left is used again). */
  async #reserve(draft: Draft): Promise<void> {
    if (draft.reserved || !this.#o.reserve) return;
    const key = randomBytes(9).toString('base64url');
    try {
      draft.reserved = { key, delivery: await this.#o.reserve(key) };
    } catch (error) {
      this.#o.logger?.warn({ err: error, chat: this.#o.chat }, 'could not reserve the record of a draft; posting it');
    }
  }

  async #release(draft: Draft): Promise<void> {
    const key = draft.reserved!.delivery;
    draft.reserved = undefined;
    await this.#o.release?.([{ key }]).catch((err: unknown) => this.#o.logger?.warn({ err }, 'could not end a record'));
  }

  async #record(ref: MessageRef): Promise<void> {
    try {
      await this.#o.record?.(ref);
    } catch (error) {
      // Unrecorded, a crash would leave this draft half-written; the answer itself is not at stake.
      this.#o.logger?.warn({ err: error, chat: this.#o.chat }, 'could not record the message an answer is shown in');
    }
  }

  #show(read = true): void {
    this.#timer = undefined;
    // The call still being written reads first, so the draft has its latest words: they come in this turn of
    // the event loop, and it is shown at the turn's end — one wake-up for the read and the show.
    const current = this.#current;
    if (read && !this.#closed && current && this.#reader?.call === current.call && !current.ended && !current.failed) {
      // Set first: the words the read tells find a show on its way, and schedule none of their own.
      this.#timer = this.#after(0, () => this.#show(false));
      this.#reader.readNow();
      return;
    }
    const next = nextToShow(this.#drafts, this.#current);
    if (this.#closed || !next) return;
    const { draft, text, written } = next;
    this.#showing = true;
    this.#edits = (async () => {
      try {
        // Until a message shows it (none yet, or only a preview), this show may post one: its record is reserved
        // first, unless the surface shows it as a preview, which needs none (Surface.previews).
        const posting = !draft.refs || draft.refs.every((ref) => ref.preview);
        if (posting && !this.#o.surfaces.previews(this.#o.chat)) await this.#reserve(draft);
        const partial: PartialAnswer = {
          text,
          written,
          ...(this.#o.recipient && { recipient: this.#o.recipient }),
          ...(posting && draft.reserved && { key: draft.reserved.delivery }),
        };
        const shown = await this.#o.surfaces.showDraft(this.#o.chat, partial, draft.refs);
        // A preview is no message: nothing to find after a crash, so its reservation goes.
        if (posting && draft.reserved && shown[0]?.preview) await this.#release(draft);
        // The first message of a reserved draft is known by its key (its record is the reserved one).
        const refs = shown.map((ref, i) =>
          i === 0 && posting && draft.reserved && !ref.preview ? { ...ref, draft: draft.reserved.key } : ref,
        );
        for (const ref of refs) if (!ref.preview && !draft.refs?.some((r) => r.id === ref.id)) await this.#record(ref);
        draft.refs = refs;
        draft.shown = text;
      } catch (error) {
        // A draft is a courtesy: the answer still arrives whole through the outbox.
        this.#o.logger?.warn({ err: error, chat: this.#o.chat }, 'could not show the answer as it was written');
      } finally {
        this.#showing = false;
        this.#shownAt = performance.now();
        // Words that came while this edit was under way go in the next one, an interval from now.
        this.#schedule();
      }
    })();
  }
}

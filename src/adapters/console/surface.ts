import type { Writable } from 'node:stream';
import type {
  Actor,
  Card,
  ChatRef,
  Message,
  MessageRef,
  PartialAnswer,
  SendProgress,
  Surface,
} from '../../core/surface/index.ts';
import { openLocalFile } from './attach.ts';
import { cardPrefix, REPLY_PREFIX, renderCard, renderReply } from './render.ts';
import { Terminal } from './terminal.ts';

const THINKING = '⋯ thinking…';

/**
 * The terminal as a Surface: replies and cards are printed; a card with buttons stays "open" until
 * it is edited (settled), and the console session takes the next line as its answer.
 */
export class ConsoleSurface implements Surface {
  readonly platform = 'console';
  /** A file "sent" to the terminal is shown by where its copy is kept: the person opens it there. */
  readonly fileLimit = 2 * 1024 ** 3;
  /** A file sent in with `/attach <path>` (attach.ts). */
  readonly openAttachment = openLocalFile;
  readonly #terminal: Terminal;
  readonly #interactive: boolean;
  readonly #open = new Map<string, { ref: MessageRef; card: Card }>();
  /** Each card as first sent, by message id: an edit is labelled as the card it edits. */
  readonly #shown = new Map<string, Card>();
  #sent = 0;
  #thinking = false;
  /**
   * Redraws the session's prompt (and what the person has typed so far) while it waits at one: a
   * reminder or a card arriving then is printed on its own line above it, not into the typed words.
   */
  #prompt?: () => void;
  /** The words of the draft being printed, by its reference: the next print adds to them. */
  readonly #printed = new Map<string, string>();
  /**
   * At a terminal, an answer is printed as the model writes it (streaming); on a pipe, where scripts
   * read whole `kazma> ` lines, it is printed whole.
   */
  readonly showDraft?: (chat: ChatRef, partial: PartialAnswer, draft?: readonly MessageRef[]) => Promise<MessageRef[]>;

  /** `interactive`: a person at a terminal, who is shown "thinking…" while a turn runs (never on a pipe). */
  constructor(options: { output: Writable; interactive?: boolean }) {
    this.#terminal = new Terminal(options.output);
    this.#interactive = options.interactive ?? false;
    // One "message": a terminal has no message length to outgrow.
    if (this.#interactive)
      this.showDraft = async (chat, { written }, draft) => [this.#draft(chat, written, draft?.[0])];
  }

  async send(chat: ChatRef, message: Message, progress?: SendProgress): Promise<MessageRef> {
    const draft = progress?.draft?.[0];
    const printed = draft && this.#printed.get(draft.id);
    if (draft && printed !== undefined) {
      this.#printed.delete(draft.id);
      // The rest of the answer after the words already printed; a retry that rewrote them, whole.
      if (message.text.startsWith(printed)) this.#terminal.text(`${continued(message.text.slice(printed.length))}\n`);
      else this.#write(`\n${renderReply(message.text)}`);
      return draft;
    }
    const file = message.file && `📎 ${message.file.name} (${message.file.size} bytes): ${message.file.path}`;
    this.#write(renderReply(file ? [file, message.text].filter(Boolean).join('\n') : message.text));
    return { chat, id: `m${++this.#sent}` };
  }

  /** Prints the words written since the last print (no line end yet); a rewrite starts a new line. */
  #draft(chat: ChatRef, written: string, draft?: MessageRef): MessageRef {
    const ref = draft ?? { chat, id: `m${++this.#sent}` };
    const printed = this.#printed.get(ref.id);
    if (printed === undefined) {
      if (this.#thinking) this.#terminal.control('clearLine');
      this.#thinking = false;
      this.#terminal.text(renderReply(written));
    } else if (written.startsWith(printed)) this.#terminal.text(continued(written.slice(printed.length)));
    else this.#terminal.text(`\n${renderReply(written)}`);
    this.#printed.set(ref.id, written);
    return ref;
  }

  async sendCard(chat: ChatRef, card: Card): Promise<MessageRef> {
    const ref = { chat, id: `m${++this.#sent}` };
    this.#shown.set(ref.id, card);
    // A session prints many cards over hours; only recent ones are ever edited.
    if (this.#shown.size > 500) this.#shown.delete(this.#shown.keys().next().value!);
    this.#write(renderCard(card));
    if (card.buttons.length > 0) this.#open.set(ref.id, { ref, card });
    return ref;
  }

  async editCard(ref: MessageRef, card: Card): Promise<void> {
    if (card.buttons.length === 0) this.#open.delete(ref.id);
    else this.#open.set(ref.id, { ref, card });
    // A settled approval keeps its [approval] lines: the edit is told by the card it was, not its buttonless end.
    const was = this.#shown.get(ref.id) ?? card;
    this.#write(`${cardPrefix(was)}${card.footer ?? `${card.title} (updated)`}`);
  }

  /** Called while a turn runs: one "thinking…" line on a terminal, replaced by whatever is printed next. */
  async typing(): Promise<void> {
    if (!this.#interactive || this.#thinking) return;
    this.#thinking = true;
    this.#terminal.text(THINKING);
  }

  /** The turn ended without printing anything: take the "thinking…" line away. */
  doneThinking(): void {
    if (!this.#thinking) return;
    this.#thinking = false;
    // Carriage return, then erase the line: the indicator leaves nothing behind.
    this.#terminal.control('clearLine');
  }

  async replyPrivately(chat: ChatRef, _actor: Actor, text: string): Promise<void> {
    await this.send(chat, { text });
  }

  /** The session shows its prompt; `redraw` writes it again, with the words typed so far. */
  promptShown(redraw: () => void): void {
    this.#prompt = redraw;
  }

  /** The person ended their line: nothing waits at the prompt until it is shown again. */
  promptTaken(): void {
    this.#prompt = undefined;
  }

  /** The oldest card still waiting for an answer, if any. */
  openCard(): { ref: MessageRef; card: Card } | undefined {
    return this.#open.values().next().value;
  }

  /** A line of text for the terminal (the session's notes, the banner): sanitised like everything else. */
  print(text: string): void {
    this.#write(text);
  }

  #write(text: string): void {
    if (this.#thinking || this.#prompt) this.#terminal.control('clearLine');
    this.#thinking = false;
    this.#terminal.text(`${text}\n`);
    this.#prompt?.();
  }
}

/** More words of a reply already being printed: each new line gets the reply prefix. */
function continued(words: string): string {
  return words.replaceAll('\n', `\n${REPLY_PREFIX}`);
}

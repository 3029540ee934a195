import type { Writable } from 'node:stream';
import type { Actor, Card, ChatRef, Message, MessageRef, Surface } from '../../core/surface/index.ts';
import { CARD_PREFIX, renderCard, renderReply } from './render.ts';
import { Terminal } from './terminal.ts';

const THINKING = '⋯ thinking…';

/**
 * The terminal as a Surface: replies and cards are printed; a card with buttons stays "open" until
 * it is edited (settled), and the console session takes the next line as its answer.
 */
export class ConsoleSurface implements Surface {
  readonly platform = 'console';
  readonly #terminal: Terminal;
  readonly #interactive: boolean;
  readonly #open = new Map<string, { ref: MessageRef; card: Card }>();
  #sent = 0;
  #thinking = false;

  /** `interactive`: a person at a terminal, who is shown "thinking…" while a turn runs (never on a pipe). */
  constructor(options: { output: Writable; interactive?: boolean }) {
    this.#terminal = new Terminal(options.output);
    this.#interactive = options.interactive ?? false;
  }

  async send(chat: ChatRef, message: Message): Promise<MessageRef> {
    this.#write(renderReply(message.text));
    return { chat, id: `m${++this.#sent}` };
  }

  async sendCard(chat: ChatRef, card: Card): Promise<MessageRef> {
    const ref = { chat, id: `m${++this.#sent}` };
    this.#write(renderCard(card));
    if (card.buttons.length > 0) this.#open.set(ref.id, { ref, card });
    return ref;
  }

  async editCard(ref: MessageRef, card: Card): Promise<void> {
    if (card.buttons.length === 0) this.#open.delete(ref.id);
    else this.#open.set(ref.id, { ref, card });
    this.#write(`${CARD_PREFIX}${card.footer ?? `${card.title} (updated)`}`);
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

  /** The oldest card still waiting for an answer, if any. */
  openCard(): { ref: MessageRef; card: Card } | undefined {
    return this.#open.values().next().value;
  }

  /** A line of text for the terminal (the session's notes, the banner): sanitised like everything else. */
  print(text: string): void {
    this.#write(text);
  }

  #write(text: string): void {
    if (this.#thinking) this.#terminal.control('clearLine');
    this.#thinking = false;
    this.#terminal.text(`${text}\n`);
  }
}

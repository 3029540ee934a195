import type { Writable } from 'node:stream';
import type { Actor, Card, ChatRef, Message, MessageRef, Surface } from '../../core/surface/index.ts';
import { CARD_PREFIX, renderCard, renderReply } from './render.ts';

const THINKING = '⋯ thinking…';
// Carriage return, then erase the line: the indicator leaves nothing behind.
const CLEAR_LINE = '\r\x1b[2K';

/**
 * The terminal as a Surface: replies and cards are printed; a card with buttons stays "open" until
 * it is edited (settled), and the console session takes the next line as its answer.
 */
export class ConsoleSurface implements Surface {
  readonly platform = 'console';
  readonly #output: Writable;
  readonly #interactive: boolean;
  readonly #open = new Map<string, { ref: MessageRef; card: Card }>();
  #sent = 0;
  #thinking = false;

  /** `interactive`: a person at a terminal, who is shown "thinking…" while a turn runs (never on a pipe). */
  constructor(options: { output: Writable; interactive?: boolean }) {
    this.#output = options.output;
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
    this.#output.write(THINKING);
  }

  /** The turn ended without printing anything: take the "thinking…" line away. */
  doneThinking(): void {
    if (!this.#thinking) return;
    this.#thinking = false;
    this.#output.write(CLEAR_LINE);
  }

  async replyPrivately(chat: ChatRef, _actor: Actor, text: string): Promise<void> {
    await this.send(chat, { text });
  }

  /** The oldest card still waiting for an answer, if any. */
  openCard(): { ref: MessageRef; card: Card } | undefined {
    return this.#open.values().next().value;
  }

  #write(text: string): void {
    const clear = this.#thinking ? CLEAR_LINE : '';
    this.#thinking = false;
    this.#output.write(`${clear}${text}\n`);
  }
}

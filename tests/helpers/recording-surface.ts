// A Surface that records what the core sent, for core-level tests (platform adapters are tested against
// their fake servers instead). `failNext` makes calls throw like a platform error.
import type { Actor, Card, ChatRef, Message, MessageRef, SendProgress, Surface } from '../../src/core/surface/index.ts';

export interface SentCard {
  ref: MessageRef;
  card: Card;
  edits: Card[];
}

export class RecordingSurface implements Surface {
  /** `staged`: what an earlier attempt staged (SendProgress.staged), handed to this send. */
  readonly sent: Array<{ chat: ChatRef; text: string; staged?: string }> = [];
  readonly privately: Array<{ chat: ChatRef; actor: Actor; text: string }> = [];
  readonly cards: SentCard[] = [];
  #n = 0;
  #failures = 0;

  constructor(readonly platform: string) {}

  /** The next `times` sends, card posts or edits throw, as a platform answering 5xx would. */
  failNext(times: number): void {
    this.#failures = times;
  }

  #maybeFail(): void {
    if (this.#failures > 0) {
      this.#failures--;
      throw new Error(`${this.platform}: 500 Internal Server Error`);
    }
  }

  async send(chat: ChatRef, message: Message, progress?: SendProgress): Promise<MessageRef> {
    this.#maybeFail();
    this.sent.push({ chat, text: message.text, ...(progress?.staged && { staged: progress.staged.id }) });
    return { chat, id: String(++this.#n) };
  }

  async sendCard(chat: ChatRef, card: Card): Promise<MessageRef> {
    this.#maybeFail();
    const ref = { chat, id: String(++this.#n) };
    this.cards.push({ ref, card, edits: [] });
    return ref;
  }

  async editCard(ref: MessageRef, card: Card): Promise<void> {
    this.#maybeFail();
    const sent = this.cards.find((c) => c.ref.id === ref.id);
    if (!sent) throw new Error(`editCard of unknown message ${ref.id}`);
    sent.edits.push(card);
  }

  async typing(): Promise<void> {}

  async replyPrivately(chat: ChatRef, actor: Actor, text: string): Promise<void> {
    this.privately.push({ chat, actor, text });
  }

  /** Texts sent, in order. */
  texts(): string[] {
    return this.sent.map((s) => s.text);
  }

  /** The last card that still has buttons and was not edited. */
  openCard(): SentCard | undefined {
    return [...this.cards].reverse().find((c) => c.card.buttons.length > 0 && c.edits.length === 0);
  }
}

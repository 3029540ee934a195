import type { ChatRef } from '../../src/core/chat/ref.ts';
import type { Actor, Card, Message, MessageRef, Surface } from '../../src/core/chat/types.ts';

/**
 * An in-process Surface that records what the core sent (for core-level tests; platform adapters are
 * tested against their fake servers instead). `failNext` makes the next calls throw like a platform error.
 */
export class RecordingSurface implements Surface {
  readonly sent: Array<{ chat: ChatRef; message?: Message; card?: Card; ref: MessageRef }> = [];
  readonly edits: Array<{ ref: MessageRef; card: Card }> = [];
  readonly privateReplies: Array<{ chat: ChatRef; actor: Actor; text: string }> = [];
  #failures = 0;
  #next = 0;

  constructor(readonly platform: string) {}

  failNext(times: number): void {
    this.#failures = times;
  }

  #maybeFail(): void {
    if (this.#failures > 0) {
      this.#failures--;
      throw new Error(`${this.platform}: 500 Internal Server Error`);
    }
  }

  async send(chat: ChatRef, message: Message): Promise<MessageRef> {
    this.#maybeFail();
    const ref = { chat, id: String(++this.#next) };
    this.sent.push({ chat, message, ref });
    return ref;
  }

  async sendCard(chat: ChatRef, card: Card): Promise<MessageRef> {
    this.#maybeFail();
    const ref = { chat, id: String(++this.#next) };
    this.sent.push({ chat, card, ref });
    return ref;
  }

  async editCard(ref: MessageRef, card: Card): Promise<void> {
    this.#maybeFail();
    this.edits.push({ ref, card });
  }

  async typing(): Promise<void> {}

  async replyPrivately(chat: ChatRef, actor: Actor, text: string): Promise<void> {
    this.privateReplies.push({ chat, actor, text });
  }
}

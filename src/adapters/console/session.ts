import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { Actor, ChatRef, InboundEvent } from '../../core/surface/index.ts';
import type { PipelineOutcome } from '../../core/chat/index.ts';
import { attachedPath, localAttachment } from './attach.ts';
import { buttonFor, CARD_PREFIX } from './render.ts';
import type { ConsoleSurface } from './surface.ts';

/** `/stop`, as typed at the terminal while a turn runs. */
const STOP = /^\/stop(?:\s|$)/i;

/** The chat the terminal is. */
export const CONSOLE_CHAT: ChatRef = 'console:local';

/** Options for {@link ConsoleSession}. */
export interface ConsoleSessionOptions {
  pipeline: { handle(event: InboundEvent): Promise<PipelineOutcome> };
  surface: ConsoleSurface;
  /** Who types here (AccessPolicy.consoleActor()). */
  actor: Actor;
  /** Default `console:local`. */
  chat?: ChatRef;
  input: Readable;
  output: Writable;
  /** Show prompts (a terminal); false for piped input. */
  interactive?: boolean;
  /** Resolves when no turn is queued or running and every card is shown (KazmaCore.idle). */
  idle: () => Promise<void>;
}

/**
 * Reads the terminal one line at a time and waits for each line's work before the next, so piped
 * input behaves like a person typing: while an approval card is open, a line that names one of its
 * buttons (`o`, `a`, `d`) answers it; any other line is a new message (which supersedes the question).
 * At a terminal, `/stop` typed while a turn runs is taken at once (it ends that turn). Resolves at end
 * of input once every turn has finished.
 */
export class ConsoleSession {
  readonly #o: ConsoleSessionOptions;

  constructor(options: ConsoleSessionOptions) {
    this.#o = options;
  }

  async run(): Promise<void> {
    const { input, output, interactive = false } = this.#o;
    const lines = createInterface({ input, ...(interactive && { output, terminal: true }) });
    // `prompt(true)` writes the prompt and the line typed so far, the cursor where it was; a card that
    // arrived meanwhile turns `you> ` into `answer> `.
    const show = (redraw: boolean) => {
      lines.setPrompt(this.#o.surface.openCard() ? 'answer> ' : 'you> ');
      lines.prompt(redraw);
    };
    const prompt = () => {
      if (!interactive) return;
      show(false);
      this.#o.surface.promptShown(() => show(true));
    };
    prompt();
    // Each line's work waits for the line before; at a terminal `/stop` does not: it ends the turn under way.
    let work = Promise.resolve();
    let waiting = 0;
    let stopping = false;
    for await (const line of lines) {
      this.#o.surface.promptTaken();
      const text = line.trim();
      if (stopping) break;
      if (interactive && waiting > 0 && STOP.test(text)) {
        void this.#take(text).catch(() => undefined);
        continue;
      }
      waiting++;
      work = work.then(async () => {
        if (!stopping && text !== '' && (await this.#take(text)) === 'stopping') {
          stopping = true;
          lines.close();
        }
        // Cards arrive through the outbox: wait until they are shown, so the next line can answer one.
        await this.#o.idle();
        this.#o.surface.doneThinking();
        if (--waiting === 0 && !stopping) prompt();
      });
      // Piped input is read as typed: one line's work at a time.
      if (!interactive) await work;
    }
    await work;
    await this.#o.idle();
    if (this.#o.surface.openCard()) this.#o.surface.print(`${CARD_PREFIX}left unanswered: input ended`);
  }

  async #take(text: string): Promise<PipelineOutcome> {
    const chat = this.#o.chat ?? CONSOLE_CHAT;
    const base = { eventId: randomUUID(), platform: 'console', chat, actor: this.#o.actor } as const;
    const open = this.#o.surface.openCard();
    const button = open && buttonFor(open.card, text);
    if (open && button)
      return this.#o.pipeline.handle({ ...base, kind: 'action', actionId: button.id, message: open.ref });
    const path = attachedPath(text);
    if (path === undefined) return this.#o.pipeline.handle({ ...base, kind: 'message', text });
    const attachment = await localAttachment(path);
    if (typeof attachment === 'string') {
      await this.#o.surface.send(chat, { text: attachment });
      return 'handled';
    }
    return this.#o.pipeline.handle({ ...base, kind: 'message', text: '', attachments: [attachment] });
  }
}

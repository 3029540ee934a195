// Discord wants every interaction acknowledged within 3 seconds, and answers to it go through its token
// (valid 15 minutes). So a tap or a slash command is acknowledged first — a tap as a deferred update
// (the card stays as it is until the core edits it), a command as a deferred ephemeral reply — and only
// then handed to the core. While the core handles it, this is the interaction "in hand" (an
// AsyncLocalStorage scope follows the work through the pipeline and the chat queue): the surface's
// `replyPrivately` to that person in that chat — a refusal, "already decided", a slash command's answers
// (the core sends those privately) — is answered through it, visible to that person only (flags 64).
// Other work running meanwhile — turns, the outbox — has its own scope and is not affected.
import { AsyncLocalStorage } from 'node:async_hooks';
import { InteractionResponseType, MessageFlags, Routes, type REST } from 'discord.js';
import type { ChatRef } from '../../core/surface/index.ts';
import type { Logger } from '../../core/log/index.ts';

/** A tap or a slash command being handled. */
export interface OpenInteraction {
  readonly id: string;
  readonly token: string;
  readonly applicationId: string;
  readonly kind: 'button' | 'command';
  readonly chat: ChatRef;
  readonly actorId: string;
  /** Discord took the acknowledgement; answers through the token are possible. */
  acknowledged: boolean;
  /** A command's deferred reply still shows "thinking…": the next answer fills it. */
  pendingOriginal: boolean;
  /** Handling ended; the interaction is no longer answered through. */
  closed: boolean;
}

const NO_MENTIONS = { parse: [] };

export class Interactions {
  readonly #scope = new AsyncLocalStorage<OpenInteraction>();
  readonly #rest: REST;
  readonly #logger: Logger | undefined;

  constructor(options: { rest: REST; logger?: Logger }) {
    this.#rest = options.rest;
    this.#logger = options.logger;
  }

  /** Acknowledges at once; false when Discord no longer takes it (too late, or answered elsewhere). */
  async acknowledge(open: OpenInteraction): Promise<boolean> {
    const body =
      open.kind === 'button'
        ? { type: InteractionResponseType.DeferredMessageUpdate }
        : { type: InteractionResponseType.DeferredChannelMessageWithSource, data: { flags: MessageFlags.Ephemeral } };
    try {
      await this.#rest.post(Routes.interactionCallback(open.id, open.token), { body, auth: false });
      open.acknowledged = true;
      open.pendingOriginal = open.kind === 'command';
    } catch (error) {
      this.#logger?.warn(
        { err: error, interaction: open.id },
        'could not acknowledge a Discord interaction; answers go by direct message',
      );
    }
    return open.acknowledged;
  }

  /**
   * Answers an interaction with `body` as its one response (a modal, or a private message for a tap that is not
   * handed to the core); false when Discord no longer takes it.
   */
  async respond(interaction: { id: string; token: string }, body: Record<string, unknown>): Promise<boolean> {
    try {
      await this.#rest.post(Routes.interactionCallback(interaction.id, interaction.token), { body, auth: false });
      return true;
    } catch (error) {
      this.#logger?.warn({ err: error, interaction: interaction.id }, 'could not answer a Discord interaction');
      return false;
    }
  }

  /** Runs `work` with `open` in hand; afterwards it is closed, whatever `work` did. */
  async run<T>(open: OpenInteraction, work: () => Promise<T>): Promise<T> {
    try {
      return await this.#scope.run(open, work);
    } finally {
      open.closed = true;
    }
  }

  /** The interaction in hand here, if any, and only while it can still be answered. */
  current(): OpenInteraction | undefined {
    const open = this.#scope.getStore();
    return open?.acknowledged && !open.closed ? open : undefined;
  }

  /** Shows `chunks` to the interaction's user only: a command's deferred reply first, then follow-ups. */
  async answer(open: OpenInteraction, chunks: string[]): Promise<void> {
    for (const content of chunks) {
      if (open.pendingOriginal) {
        open.pendingOriginal = false;
        await this.#rest.patch(Routes.webhookMessage(open.applicationId, open.token, '@original'), {
          body: { content, allowed_mentions: NO_MENTIONS },
          auth: false,
        });
      } else {
        await this.#rest.post(Routes.webhook(open.applicationId, open.token), {
          body: { content, flags: MessageFlags.Ephemeral, allowed_mentions: NO_MENTIONS },
          auth: false,
        });
      }
    }
  }

  /** After handling: a command whose reply still says "thinking…" gets `text`, so it never hangs. */
  async finish(open: OpenInteraction, text: string): Promise<void> {
    if (!open.acknowledged || !open.pendingOriginal) return;
    await this.answer(open, [text]).catch((error: unknown) =>
      this.#logger?.warn({ err: error, interaction: open.id }, 'could not finish a Discord command reply'),
    );
  }
}

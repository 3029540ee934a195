// What a run says: the model's replies (each once, through the reply outbox) and Kazma's own notices,
// delivered to every target of the run; and the words for a turn that failed.
import { GraphRecursionError, isUnknownInterruptError } from '@langchain/langgraph';
import type { ChatRef, SurfaceRegistry } from '../../surface/index.ts';
import type { Logger } from '../../log/index.ts';
import type { DraftFor, Reply, SentHandOff } from '../../outbox/index.ts';
import type { LiveReply } from '../../streaming/index.ts';
import type { RunRef } from '../../runs/index.ts';
import { fallbackNote, TOO_MANY_STEPS_TEXT, turnFailedText } from './replies.ts';
import type { AgentStateValue } from '../graph/state.ts';
import { newReplies, positionAfter, type RepliesAnchor } from './transcript.ts';

/** Options for {@link TurnOutput}. */
export interface TurnOutputOptions {
  surfaces: SurfaceRegistry;
  /** Where a turn's replies go: written to the outbox, then sent, once (ReplyOutbox). */
  replies: {
    deliver(
      chat: ChatRef,
      replies: readonly Reply[],
      options?: { handOff?: SentHandOff; draftFor?: DraftFor },
    ): Promise<void>;
  };
  logger?: Logger;
}

export class TurnOutput {
  readonly #o: TurnOutputOptions;

  constructor(options: TurnOutputOptions) {
    this.#o = options;
  }

  /**
   * Sends the model's words after `from` to every target, each once (keyed by message id and target);
   * `sent` takes over recording them as sent (ReplyOutbox.deliver).
   */
  async replies(
    run: RunRef,
    state: Pick<AgentStateValue, 'messages' | 'answeredBy'>,
    from: RepliesAnchor,
    sent?: SentHandOff,
    live?: Pick<LiveReply, 'draftFor'>,
  ): Promise<void> {
    const replies = newReplies(state.messages, positionAfter(state.messages, from));
    const last = replies.at(-1);
    if (last && state.answeredBy?.fallback && !last.text.startsWith('⚠️'))
      last.text += `\n\n${fallbackNote(state.answeredBy.model)}`;
    await this.deliver(run, replies, sent, live && ((text) => live.draftFor(text)));
  }

  /**
   * Delivers replies to every target; the first target keeps the plain key, so a chat turn's rows are as
   * before. `draftFor`: the first target's drafts showing a reply as it was written (core/streaming).
   */
  async deliver(run: RunRef, replies: readonly Reply[], sent?: SentHandOff, draftFor?: DraftFor): Promise<void> {
    for (const [i, target] of run.deliverTo.entries()) {
      await this.#o.replies.deliver(
        target,
        i === 0 ? replies : replies.map((r) => ({ ...r, key: `${r.key}>${target}` })),
        { ...(sent && { handOff: sent }), ...(i === 0 && draftFor && { draftFor }) },
      );
    }
  }

  /** A notice of Kazma's own, sent now (not through the model's transcript). */
  async notice(run: RunRef, text: string): Promise<void> {
    for (const target of run.deliverTo) {
      await this.#o.surfaces
        .send(target, { text })
        .catch((error: unknown) => this.#o.logger?.error({ err: error, chat: target }, 'could not deliver a reply'));
    }
  }

  typing(run: RunRef): void {
    if (run.origin) void this.#o.surfaces.typing(run.origin).catch(() => {});
  }

  /** What the user is told about a failed turn (and the error logged). */
  failureText(error: unknown, threadId: string): string {
    if (isUnknownInterruptError(error)) return 'That question is no longer open, so nothing was resumed.';
    this.#o.logger?.error({ err: error, thread: threadId }, 'turn failed');
    if (error instanceof GraphRecursionError) return TOO_MANY_STEPS_TEXT;
    return turnFailedText(error instanceof Error ? error.message : String(error));
  }
}

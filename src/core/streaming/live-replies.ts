// Which chats see answers as they are written: `streaming` in kazma.yaml, per platform, where the
// chat's surface can show a draft (Surface.showDraft). And after a crash, the drafts a stopped run left
// half-written: each is edited to say so, once (the messages were recorded when first posted).
import type { KazmaConfig } from '../config/index.ts';
import type { Logger } from '../log/index.ts';
import { parseChatRef, type Actor, type ChatRef, type MessageRef, type SurfaceRegistry } from '../surface/index.ts';
import { LiveReply } from './live-reply.ts';

type Streaming = KazmaConfig['streaming'];

/** What a half-written draft says once the turn it showed was cut short by a stop of the process. */
export const INTERRUPTED_TEXT = '⚠️ Interrupted: Kazma stopped while writing this answer. It follows below.';

/** A draft a run left: its message, or only the delivery key its first message was posted under. */
export interface LeftDraft {
  chat: ChatRef;
  ref?: MessageRef;
  key?: string;
}

/** Where the messages drafts were shown in are recorded, per turn (core/outbox DraftRecords). */
export interface DraftLedger {
  /** Records a draft about to be posted under `key`; returns the delivery key it is to be posted under. */
  reserve(turn: string, chat: ChatRef, key: string): Promise<string>;
  posted(turn: string, ref: MessageRef): Promise<void>;
  left(turn: string): Promise<LeftDraft[]>;
  ended(draft: LeftDraft | { ref?: MessageRef; key?: string }, why: string): Promise<void>;
}

/** Options for {@link LiveReplies}. */
export interface LiveRepliesOptions {
  streaming: Streaming;
  /** Configured secret values, masked in progress lines. */
  secrets?: readonly string[];
  surfaces: Pick<SurfaceRegistry, 'canDraft' | 'showDraft' | 'previews' | 'send'>;
  /** Absent: drafts are not recorded, and a crash leaves them as they were. */
  drafts?: DraftLedger;
  logger?: Logger;
}

export class LiveReplies {
  readonly #o: LiveRepliesOptions;

  constructor(options: LiveRepliesOptions) {
    this.#o = options;
  }

  /**
   * A live reply for one turn in `chat`; undefined where answers are not streamed. `turn`: the turn's id,
   * under which its drafts are recorded for {@link interrupted}; `recipient`: whom the answer is for.
   */
  open(chat: ChatRef | undefined, turn?: string, recipient?: Actor): LiveReply | undefined {
    if (chat === undefined) return undefined;
    const { streaming, surfaces, logger, drafts } = this.#o;
    const platform = streaming[parseChatRef(chat).platform as keyof Streaming];
    const own = typeof platform === 'object' ? platform : undefined;
    if (!(own?.enabled ?? streaming.enabled) || !surfaces.canDraft(chat)) return undefined;
    return new LiveReply({
      chat,
      surfaces,
      startAfterMs: streaming.start_after,
      editIntervalMs: own?.edit_interval ?? 1_000,
      ...(this.#o.secrets && { secrets: this.#o.secrets }),
      ...(drafts &&
        turn !== undefined && {
          reserve: (key: string) => drafts.reserve(turn, chat, key),
          record: (ref: MessageRef) => drafts.posted(turn, ref),
          release: async (left: Array<{ ref?: MessageRef; key?: string }>) => {
            for (const draft of left) await drafts.ended(draft, 'the drive showing it ended without it');
          },
        }),
      ...(recipient && { recipient }),
      ...(logger && { logger }),
    });
  }

  /**
   * A turn taken up again after a stop: the drafts an earlier run of it left half-written say they were
   * interrupted (the answer comes again, in messages of its own). Each is ended once edited; a crash in
   * between edits it again to the same words.
   */
  async interrupted(turn: string): Promise<void> {
    const { drafts, surfaces, logger } = this.#o;
    if (!drafts) return;
    const notice = { text: INTERRUPTED_TEXT, written: INTERRUPTED_TEXT };
    for (const left of await drafts.left(turn)) {
      try {
        // A draft reserved but not recorded posted: the notice goes under its key, so a platform that knows a
        // post by its key (Slack's metadata, Discord's nonce) finds the draft and it is edited; elsewhere the
        // notice is a message of its own.
        const ref =
          left.ref ??
          (await surfaces.send(
            left.chat,
            { text: INTERRUPTED_TEXT },
            {
              key: left.key!,
              again: true,
              delivered: 0,
              partSent: async () => {},
            },
          ));
        await surfaces.showDraft(left.chat, notice, [ref]);
      } catch (error) {
        // Not worth holding the turn for: the answer still comes whole.
        logger?.warn({ err: error, chat: left.chat }, 'could not mark a half-written answer as interrupted');
      }
      await drafts.ended(left, 'interrupted: the run writing it stopped');
    }
  }
}

// Which chats see answers as they are written: `streaming` in kazma.yaml, per platform, where the
// chat's surface can show a draft (Surface.showDraft).
import type { KazmaConfig } from '../config/index.ts';
import type { Logger } from '../log/index.ts';
import { parseChatRef, type ChatRef, type SurfaceRegistry } from '../surface/index.ts';
import { LiveReply } from './live-reply.ts';

type Streaming = KazmaConfig['streaming'];

/** Options for {@link LiveReplies}. */
export interface LiveRepliesOptions {
  streaming: Streaming;
  /** Configured secret values, masked in progress lines. */
  secrets?: readonly string[];
  surfaces: Pick<SurfaceRegistry, 'canDraft' | 'showDraft'>;
  logger?: Logger;
}

export class LiveReplies {
  readonly #o: LiveRepliesOptions;

  constructor(options: LiveRepliesOptions) {
    this.#o = options;
  }

  /** A live reply for one turn in `chat`; undefined where answers are not streamed. */
  open(chat: ChatRef | undefined): LiveReply | undefined {
    if (chat === undefined) return undefined;
    const { streaming, surfaces, logger } = this.#o;
    const platform = streaming[parseChatRef(chat).platform as keyof Streaming];
    const own = typeof platform === 'object' ? platform : undefined;
    if (!(own?.enabled ?? streaming.enabled) || !surfaces.canDraft(chat)) return undefined;
    return new LiveReply({
      chat,
      surfaces,
      startAfterMs: streaming.start_after,
      editIntervalMs: own?.edit_interval ?? 1_000,
      ...(this.#o.secrets && { secrets: this.#o.secrets }),
      ...(logger && { logger }),
    });
  }
}

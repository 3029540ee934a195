import { KazmaError } from '../errors.ts';
import { parseChatRef, type ChatRef } from './ref.ts';
import type { SendProgress } from './send-progress.ts';
import type {
  Actor,
  Card,
  CardPost,
  Message,
  MessageRef,
  PartialAnswer,
  PrivateReplyOptions,
  Surface,
} from './types.ts';

/** A chat's platform has no attached surface (its adapter is disabled or not started yet). */
export class NoSurfaceError extends KazmaError {
  readonly platform: string;
  constructor(platform: string) {
    super(
      'surface_missing',
      `no surface is attached for platform "${platform}": enable it in kazma.yaml or fix the chat reference`,
    );
    this.platform = platform;
  }
}

/** A second surface was attached for a platform that already has one. */
export class DuplicateSurfaceError extends KazmaError {
  constructor(platform: string) {
    super('surface_duplicate', `a surface for platform "${platform}" is already attached`);
  }
}

/**
 * The attached surfaces by platform, and the one way the core sends: by ChatRef. The platform part
 * of the ref picks the adapter, so a reply always goes back where the chat is.
 */
export class SurfaceRegistry {
  readonly #surfaces = new Map<string, Surface>();

  /** Attaches `surface`; the returned function detaches it. */
  attach(surface: Surface): () => void {
    if (this.#surfaces.has(surface.platform)) throw new DuplicateSurfaceError(surface.platform);
    this.#surfaces.set(surface.platform, surface);
    return () => {
      if (this.#surfaces.get(surface.platform) === surface) this.#surfaces.delete(surface.platform);
    };
  }

  /** True when a surface for the chat's platform is attached. */
  has(chat: ChatRef): boolean {
    return this.#surfaces.has(parseChatRef(chat).platform);
  }

  /** The surface serving `chat`; throws {@link NoSurfaceError} when none is attached. */
  for(chat: ChatRef): Surface {
    const { platform } = parseChatRef(chat);
    const surface = this.#surfaces.get(platform);
    if (!surface) throw new NoSurfaceError(platform);
    return surface;
  }

  // Every method is async so that a missing surface is a rejection the caller can catch, not a throw.
  async send(chat: ChatRef, message: Message, progress?: SendProgress): Promise<MessageRef> {
    return this.for(chat).send(chat, message, progress);
  }

  /** True when the chat's surface can show a reply while it is written ({@link Surface.showDraft}). */
  canDraft(chat: ChatRef): boolean {
    return this.has(chat) && this.for(chat).showDraft !== undefined;
  }

  /** True when a new draft in `chat` is a preview, no message ({@link Surface.previews}). */
  previews(chat: ChatRef): boolean {
    return this.has(chat) && this.for(chat).previews?.(chat) === true;
  }

  async showDraft(chat: ChatRef, partial: PartialAnswer, draft?: readonly MessageRef[]): Promise<MessageRef[]> {
    const surface = this.for(chat);
    if (!surface.showDraft) throw new RangeError(`the ${surface.platform} surface shows no drafts`);
    return surface.showDraft(chat, partial, draft);
  }

  async sendCard(chat: ChatRef, card: Card, options?: CardPost): Promise<MessageRef> {
    return this.for(chat).sendCard(chat, card, options);
  }

  async editCard(ref: MessageRef, card: Card): Promise<void> {
    return this.for(ref.chat).editCard(ref, card);
  }

  async typing(chat: ChatRef): Promise<void> {
    return this.for(chat).typing(chat);
  }

  /** Private text where the surface can (ephemeral), else a normal message in the chat. */
  async replyPrivately(chat: ChatRef, actor: Actor, text: string, options?: PrivateReplyOptions): Promise<void> {
    const surface = this.for(chat);
    if (surface.replyPrivately) await surface.replyPrivately(chat, actor, text, options);
    else await surface.send(chat, { text });
  }
}

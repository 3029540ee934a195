// The Discord Surface: canonical Markdown becomes Discord Markdown split at 2000 characters, cards become
// messages with buttons, private text becomes an ephemeral answer where an interaction is in hand (else a
// direct message). Every call goes through Kazma's own REST client (client.ts): independent of the
// gateway, with 429s waited out and 5xx retried. Each post carries a nonce Discord enforces, so a retry
// of a post Discord did take returns that message instead of a second one; an outbox delivery's nonce is
// its key's (deliveryKey), the same on every attempt, so a part sent before a stop is not sent twice.
// Nothing pings: no mentions.
import { openDiscordFile } from './files.ts';
import { DISCORD_FILE_LIMIT, postDiscordFile } from './upload.ts';
import { randomBytes } from 'node:crypto';
import { Routes, type APIChannel, type APIMessage, type REST } from 'discord.js';
import {
  type Actor,
  type Attachment,
  type AttachmentDownload,
  type Card,
  type CardPost,
  type ChatRef,
  type Message,
  type MessageRef,
  type PartialAnswer,
  type SendProgress,
  type Surface,
  deliveryKey,
  sendInParts,
  showInParts,
} from '../../core/surface/index.ts';
import type { Logger } from '../../core/log/index.ts';
import { renderCard, sameCard, type RenderedCard } from './cards.ts';
import type { DirectMessages } from './dms.ts';
import { CODES, discordError, hasCode } from './errors.ts';
import { discordChunks } from './format.ts';
import { channelOf, messageRefOf, PLATFORM } from './ids.ts';
import type { Interactions } from './interactions.ts';
import type { TypingRefresher } from '../../core/chat/index.ts';

/** Options for {@link DiscordSurface}. */
export interface DiscordSurfaceOptions {
  rest: REST;
  /** For error messages: where the API was called (`discord.api`). */
  api: string;
  interactions: Interactions;
  typing: TypingRefresher;
  dms: DirectMessages;
  logger?: Logger;
  /** Cards remembered to skip identical edits; default 2000. */
  rememberCards?: number;
}

const NO_MENTIONS = { parse: [] };

export class DiscordSurface implements Surface {
  readonly fileLimit = DISCORD_FILE_LIMIT;
  readonly platform = PLATFORM;
  readonly #o: DiscordSurfaceOptions;
  readonly #cards = new Map<string, RenderedCard>();
  readonly #opening = new Map<string, Promise<string>>();

  constructor(options: DiscordSurfaceOptions) {
    this.#o = options;
  }

  openAttachment(attachment: Attachment, signal: AbortSignal): Promise<AttachmentDownload> {
    return openDiscordFile(this.#o.api, attachment, signal);
  }

  async send(chat: ChatRef, message: Message, progress?: SendProgress): Promise<MessageRef> {
    this.#o.typing.stop(chat);
    const { file } = message;
    if (file) {
      const key = progress?.key && deliveryKey(progress.key, 0);
      const sent = await postDiscordFile(this.#o.rest, this.#o.api, channelOf(chat), { ...message, file }, key);
      for (const content of sent.rest) await this.#post(channelOf(chat), { content });
      return messageRefOf(chat, sent.id);
    }
    return sendInParts(
      discordChunks(message.text),
      async (content, { key }) => messageRefOf(chat, await this.#post(channelOf(chat), { content }, key)),
      progress,
      (draft, content) => this.#editText(draft, content),
    );
  }

  /** The answer so far, split at 2000 as {@link send} splits it: messages posted, then edited (showInParts). */
  async showDraft(chat: ChatRef, { text, key }: PartialAnswer, draft?: readonly MessageRef[]): Promise<MessageRef[]> {
    this.#o.typing.stop(chat);
    const chunks = discordChunks(text);
    // The first message under the draft's key: after a crash, a post under it finds that message (nonce).
    const nonce = (i: number) => (i === 0 && key !== undefined ? deliveryKey(key, 0) : undefined);
    return showInParts(
      chunks.length === 0 ? ['…'] : chunks,
      draft,
      async (content, i) => messageRefOf(chat, await this.#post(channelOf(chat), { content }, nonce(i))),
      (ref, content) => this.#editText(ref, content),
    );
  }

  /** Edits a text message; one deleted meanwhile is posted again. Returns where it now is. */
  async #editText(ref: MessageRef, content: string): Promise<MessageRef> {
    try {
      await this.#o.rest.patch(Routes.channelMessage(channelOf(ref.chat), ref.id), {
        body: { content, allowed_mentions: NO_MENTIONS },
      });
      return ref;
    } catch (error) {
      if (hasCode(error, CODES.unknownMessage))
        return messageRefOf(ref.chat, await this.#post(channelOf(ref.chat), { content }));
      throw discordError('PATCH /channels/:id/messages/:mid', error, this.#o.api);
    }
  }

  async sendCard(chat: ChatRef, card: Card, options?: CardPost): Promise<MessageRef> {
    this.#o.typing.stop(chat);
    const rendered = renderCard(card);
    const nonce = options?.key && deliveryKey(options.key, 0);
    const ref = messageRefOf(chat, await this.#post(channelOf(chat), { ...rendered }, nonce));
    this.#remember(ref, rendered);
    return ref;
  }

  async editCard(ref: MessageRef, card: Card): Promise<void> {
    const rendered = renderCard(card);
    if (sameCard(this.#cards.get(ref.id), rendered)) return;
    const route = 'PATCH /channels/:id/messages/:mid';
    try {
      await this.#o.rest.patch(Routes.channelMessage(channelOf(ref.chat), ref.id), {
        body: { ...rendered, allowed_mentions: NO_MENTIONS },
      });
    } catch (error) {
      // A deleted card cannot show its outcome; retrying would not change that.
      if (hasCode(error, CODES.unknownMessage))
        return void this.#o.logger?.warn({ ref }, 'the card to edit was deleted on Discord');
      throw discordError(route, error, this.#o.api);
    }
    this.#remember(ref, rendered);
  }

  async typing(chat: ChatRef): Promise<void> {
    await this.#o.typing.start(chat);
  }

  /**
   * The interaction `actor` has in hand in `chat` (a tap, or a slash command whose answers the core
   * sends privately) answers ephemerally. Otherwise: in their own DM, a message; elsewhere a direct
   * message — or, when Discord refuses one, the chat itself.
   */
  async replyPrivately(chat: ChatRef, actor: Actor, text: string): Promise<void> {
    const chunks = discordChunks(text);
    const open = this.#o.interactions.current();
    if (open && open.actorId === actor.id && open.chat === chat) {
      try {
        return await this.#o.interactions.answer(open, chunks);
      } catch (error) {
        this.#o.logger?.warn(
          { err: error, interaction: open.id },
          'could not answer a Discord interaction; sending a direct message',
        );
      }
    }
    const channel = channelOf(chat);
    if (this.#o.dms.isDmOf(channel, actor.id)) return this.#postAll(channel, chunks);
    try {
      await this.#postAll(await this.#dmChannel(actor.id), chunks);
    } catch (error) {
      this.#o.logger?.info({ err: error, actor: actor.id }, 'no direct message possible; answering in the chat');
      await this.#postAll(channel, chunks);
    }
  }

  /** Sends one typing signal (the refresher's call). */
  async signalTyping(chat: ChatRef): Promise<void> {
    await this.#call('POST /channels/:id/typing', () => this.#o.rest.post(Routes.channelTyping(channelOf(chat))));
  }

  /** The DM with `userId`, opened once even when two chats ask for it at the same time. */
  async #dmChannel(userId: string): Promise<string> {
    const known = this.#o.dms.channelOf(userId);
    if (known) return known;
    let opening = this.#opening.get(userId);
    if (!opening) {
      opening = this.#call('POST /users/@me/channels', () =>
        this.#o.rest.post(Routes.userChannels(), { body: { recipient_id: userId } }),
      )
        .then((dm) => {
          this.#o.dms.learn((dm as APIChannel).id, userId);
          return (dm as APIChannel).id;
        })
        .finally(() => this.#opening.delete(userId));
      this.#opening.set(userId, opening);
    }
    return opening;
  }

  async #postAll(channelId: string, chunks: string[]): Promise<void> {
    for (const content of chunks) await this.#post(channelId, { content });
  }

  /**
   * Posts under `nonce` (a delivery's key: the same on every attempt), else a random one. Discord enforces it:
   * a post with a nonce it saw from this bot in this channel minutes ago returns that message, not a second.
   */
  async #post(channelId: string, body: Partial<RenderedCard>, nonce?: string): Promise<string> {
    nonce ||= randomBytes(12).toString('base64url').slice(0, 25);
    const payload = { ...body, allowed_mentions: NO_MENTIONS, nonce, enforce_nonce: true };
    const sent = (await this.#call('POST /channels/:id/messages', () =>
      this.#o.rest.post(Routes.channelMessages(channelId), { body: payload }),
    )) as APIMessage;
    return sent.id;
  }

  async #call<T>(route: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw discordError(route, error, this.#o.api);
    }
  }

  #remember(ref: MessageRef, card: RenderedCard): void {
    this.#cards.delete(ref.id);
    this.#cards.set(ref.id, card);
    while (this.#cards.size > (this.#o.rememberCards ?? 2000)) this.#cards.delete(this.#cards.keys().next().value!);
  }
}

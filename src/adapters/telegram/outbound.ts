// The Telegram Surface: canonical Markdown becomes Telegram HTML split at 4096, cards become inline
// keyboards, private text becomes a callback answer where a tap is waiting. Rate limits (429) are
// retried by the auto-retry transformer installed on `api` (see client.ts), so a call made here is
// delivered once or fails with a TelegramApiError that says why.
import { randomInt } from 'node:crypto';
import type { Api } from 'grammy';
import {
  type Actor,
  type Attachment,
  type AttachmentDownload,
  type Card,
  type ChatRef,
  type Message,
  type MessageRef,
  type PartialAnswer,
  type PrivateReplyOptions,
  type SendProgress,
  type Surface,
  sendInParts,
  showInParts,
} from '../../core/surface/index.ts';
import type { Logger } from '../../core/log/index.ts';
import type { CallbackAnswers } from './answers.ts';
import { renderCard, sameCard, type CallbackCodec, type RenderedCard } from './cards.ts';
import { openTelegramFile } from './files.ts';
import { sendTelegramFile, TELEGRAM_FILE_LIMIT } from './upload.ts';
import { isMessageGone, isNotModified, isUnparsableEntities, telegramError } from './errors.ts';
import { telegramChunks, telegramVisibleText } from './format.ts';
import { messageIdOf, messageKey, messageRefOf, PLATFORM, targetOf, type TelegramTarget } from './ids.ts';
import { askDenyReason } from './reasons.ts';
import type { TypingRefresher } from '../../core/chat/index.ts';

/** Options for {@link TelegramSurface}. */
export interface TelegramSurfaceOptions {
  api: Api;
  /** For error messages: where the API was called. */
  apiRoot: string;
  answers: CallbackAnswers;
  codec: CallbackCodec;
  typing: TypingRefresher;
  logger?: Logger;
  /** Cards remembered to skip identical edits; default 2000. */
  rememberCards?: number;
}

export class TelegramSurface implements Surface {
  readonly fileLimit = TELEGRAM_FILE_LIMIT;
  readonly platform = PLATFORM;
  readonly #o: TelegramSurfaceOptions;
  readonly #cards = new Map<string, RenderedCard>();
  /** Private chats get draft previews until the server refuses one (an older Bot API server). */
  #previews = true;

  constructor(options: TelegramSurfaceOptions) {
    this.#o = options;
  }

  openAttachment(attachment: Attachment, signal: AbortSignal): Promise<AttachmentDownload> {
    return openTelegramFile(this.#o.api, this.#o.apiRoot, attachment, signal);
  }

  async send(chat: ChatRef, message: Message, progress?: SendProgress): Promise<MessageRef> {
    const target = targetOf(chat);
    this.#o.typing.stop(chat);
    const chunks = telegramChunks(message.text);
    const post = async (html: string) => messageRefOf(chat, await this.#sendHtml(target, html));
    const { file } = message;
    if (file)
      return sendTelegramFile(this.#o.api, this.#o.apiRoot, chat, target, { ...message, file }, (t) =>
        this.send(chat, { text: t }),
      );
    // A draft preview (sendMessageDraft) is no message: the answer is sent for good with sendMessage.
    return sendInParts(chunks, post, progress, (draft, html) =>
      isPreview(draft) ? post(html) : this.#editText(draft, html),
    );
  }

  /** A private chat's draft is a preview until the server refuses one. */
  previews(chat: ChatRef): boolean {
    return this.#previews && isPrivate(targetOf(chat));
  }

  /**
   * The answer so far, split at 4096 as {@link send} splits it. In a private chat, a draft preview (Bot API
   * 9.3 sendMessageDraft: no message, no edits to rate-limit) of the part being written; elsewhere, or once
   * the server refused previews, messages posted, then edited, one per part (showInParts).
   */
  async showDraft(chat: ChatRef, { text, key }: PartialAnswer, draft?: readonly MessageRef[]): Promise<MessageRef[]> {
    this.#o.typing.stop(chat);
    const chunks = telegramChunks(text);
    const target = targetOf(chat);
    const [shown] = draft ?? [];
    if (shown ? isPreview(shown) && this.#previews : this.previews(chat)) {
      const id = shown ? Number(shown.id.slice(PREVIEW.length)) : randomInt(1, 2 ** 31 - 1);
      try {
        await this.#o.api.sendMessageDraft(Number(target.chatId), id, chunks.at(-1)!, { parse_mode: 'HTML' });
        return [{ chat, id: `${PREVIEW}${id}`, preview: true }];
      } catch (error) {
        this.#previews = false;
        this.#o.logger?.warn({ err: error }, 'Telegram refused sendMessageDraft; drafts are messages, edited');
        // Asked as a preview, it has no record reserved: posted now, a crash could leave it with nothing to find
        // it by. The next draft is posted, under a key reserved first (Surface.previews).
        if (key === undefined) throw error;
      }
    }
    const post = async (html: string) => messageRefOf(chat, await this.#sendHtml(target, html));
    return showInParts(chunks, shown && isPreview(shown) ? undefined : draft, post, (ref, html) =>
      this.#editText(ref, html),
    );
  }

  /** Edits a text message into `html`; one deleted meanwhile is posted again. Returns where it now is. */
  async #editText(ref: MessageRef, html: string): Promise<MessageRef> {
    const { chatId } = targetOf(ref.chat);
    try {
      await this.#o.api.editMessageText(chatId, messageIdOf(ref), html, { parse_mode: 'HTML' });
    } catch (error) {
      if (isNotModified(error)) return ref;
      if (isMessageGone(error)) return messageRefOf(ref.chat, await this.#sendHtml(targetOf(ref.chat), html));
      if (!isUnparsableEntities(error)) throw telegramError('editMessageText', error, this.#o.apiRoot);
      // Losing a reply is worse than losing its formatting.
      try {
        await this.#o.api.editMessageText(chatId, messageIdOf(ref), telegramVisibleText(html));
      } catch (plainError) {
        if (!isNotModified(plainError)) throw telegramError('editMessageText', plainError, this.#o.apiRoot);
      }
    }
    return ref;
  }

  async sendCard(chat: ChatRef, card: Card): Promise<MessageRef> {
    this.#o.typing.stop(chat);
    const rendered = renderCard(card, this.#o.codec);
    const ref = messageRefOf(chat, await this.#sendHtml(targetOf(chat), rendered.html, rendered));
    this.#remember(messageKey(ref), rendered);
    return ref;
  }

  async editCard(ref: MessageRef, card: Card): Promise<void> {
    const key = messageKey(ref);
    if (card.buttons.length === 0) await this.#o.answers.settled(key, card.footer ?? card.title);
    const rendered = renderCard(card, this.#o.codec);
    if (sameCard(this.#cards.get(key), rendered)) return; // Telegram would refuse it: "message is not modified"
    const { chatId } = targetOf(ref.chat);
    try {
      await this.#o.api.editMessageText(chatId, messageIdOf(ref), rendered.html, {
        parse_mode: 'HTML',
        ...(rendered.keyboard && { reply_markup: rendered.keyboard }),
      });
    } catch (error) {
      // A deleted card cannot show its outcome; retrying would not change that.
      if (isMessageGone(error)) return void this.#o.logger?.warn({ ref }, 'the card to edit was deleted on Telegram');
      if (!isNotModified(error)) throw telegramError('editMessageText', error, this.#o.apiRoot);
    }
    this.#remember(key, rendered);
  }

  async typing(chat: ChatRef): Promise<void> {
    await this.#o.typing.start(chat);
  }

  /**
   * A waiting tap by `actor` in `chat` gets `text` as an alert. Otherwise: in a private chat, a
   * message; in a group, a direct message, or — when the person never opened the bot — the group.
   */
  async replyPrivately(chat: ChatRef, actor: Actor, text: string, options: PrivateReplyOptions = {}): Promise<void> {
    const { chatId } = targetOf(chat);
    if (options.whole) return this.#wholePrivately(chat, actor, text);
    // A required deny reason: the tap is answered, and a force-reply prompt in its chat takes the reason.
    if (options.askReason) {
      await this.#o.answers.privately(String(chatId), actor.id, text);
      return askDenyReason(this.#o.api, targetOf(chat), options.askReason.gateId);
    }
    if (await this.#o.answers.privately(String(chatId), actor.id, text)) return;
    if (String(chatId) === actor.id) {
      await this.send(chat, { text });
      return;
    }
    try {
      await this.send(`${PLATFORM}:${actor.id}`, { text });
    } catch {
      await this.send(chat, { text });
    }
  }

  /**
   * All of `text` (a card's Show all) in the person's private chat with the bot, in parts; the tap is
   * answered with where it went. An alert would cut it at 200 characters, and the group is not private.
   */
  async #wholePrivately(chat: ChatRef, actor: Actor, text: string): Promise<void> {
    const chatId = String(targetOf(chat).chatId);
    const own = chatId === actor.id;
    try {
      await this.send(own ? chat : `${PLATFORM}:${actor.id}`, { text });
      await this.#o.answers.privately(chatId, actor.id, own ? 'Sent below.' : 'Sent to you in our private chat.');
    } catch (error) {
      this.#o.logger?.info({ err: error, actor: actor.id }, 'no private chat with this person for Show all');
      await this.#o.answers.privately(
        chatId,
        actor.id,
        'I cannot write to you privately: open a chat with me (Start), then tap Show all again.',
      );
    }
  }

  /** Sends one chat action (the typing refresher's call). */
  async chatAction(chat: ChatRef): Promise<void> {
    const target = targetOf(chat);
    await this.#o.api.sendChatAction(
      target.chatId,
      'typing',
      target.threadId === undefined ? {} : { message_thread_id: target.threadId },
    );
  }

  async #sendHtml(target: TelegramTarget, html: string, card?: RenderedCard): Promise<number> {
    const extra = {
      ...(target.threadId !== undefined && { message_thread_id: target.threadId }),
      ...(card?.keyboard && { reply_markup: card.keyboard }),
    };
    try {
      return (await this.#o.api.sendMessage(target.chatId, html, { parse_mode: 'HTML', ...extra })).message_id;
    } catch (error) {
      if (!isUnparsableEntities(error)) throw telegramError('sendMessage', error, this.#o.apiRoot);
      // Losing a reply is worse than losing its formatting.
      this.#o.logger?.warn({ err: error }, 'Telegram could not parse our HTML; sending the text plain');
      try {
        return (await this.#o.api.sendMessage(target.chatId, telegramVisibleText(html), extra)).message_id;
      } catch (plainError) {
        throw telegramError('sendMessage', plainError, this.#o.apiRoot);
      }
    }
  }

  #remember(key: string, card: RenderedCard): void {
    this.#cards.delete(key);
    this.#cards.set(key, card);
    while (this.#cards.size > (this.#o.rememberCards ?? 2000)) this.#cards.delete(this.#cards.keys().next().value!);
  }
}

/** The id prefix of a draft preview's reference: `preview:<draft_id>`, no message behind it. */
const PREVIEW = 'preview:';

const isPreview = (ref: MessageRef): boolean => ref.id.startsWith(PREVIEW);

/** A private chat (a person's id, no topic): the only kind sendMessageDraft takes. */
const isPrivate = (target: TelegramTarget): boolean =>
  typeof target.chatId === 'number' && target.chatId > 0 && target.threadId === undefined;

// Telegram updates in, InboundEvents out. The event id is the update_id, so the inbox drops a
// redelivered update even after a restart. An update is acknowledged (the webhook's 200, the poll
// offset) only once the inbox holds it; the turn then runs without being waited for, so neither the
// polling loop nor the webhook answer waits on a model, and the pipeline keeps each chat's turns in order.
import type { Message, Update, UserFromGetMe } from 'grammy/types';
import { InFlight, type Accepted, type PlatformCoreLink, type TypingRefresher } from '../../core/chat/index.ts';
import { InvalidInboundEventError, type InboundEvent } from '../../core/surface/index.ts';
import type { Logger } from '../../core/log/index.ts';
import type { CallbackAnswers } from './answers.ts';
import { tappedLabel, type CallbackCodec } from './cards.ts';
import { attachmentsOf } from './files.ts';
import { actorOf, chatRefOf, messageKeyOf, PLATFORM } from './ids.ts';
import { asDenyReason } from './reasons.ts';
import { parseUpdate } from './update-schema.ts';

/** Which group messages reach Kazma: only those addressed to the bot, or every one. */
export type GroupMode = 'mention' | 'all';

type Me = Pick<UserFromGetMe, 'id' | 'username'>;

/** Options for {@link TelegramInbound}. */
export interface TelegramInboundOptions {
  pipeline: PlatformCoreLink['pipeline'];
  /** The bot itself (getMe), known once the bot is initialised. */
  me: () => Me;
  groups: GroupMode;
  answers: CallbackAnswers;
  codec: CallbackCodec;
  typing: TypingRefresher;
  logger?: Logger;
}

export class TelegramInbound {
  readonly #o: TelegramInboundOptions;
  readonly #inflight = new InFlight();
  #highest = 0;

  constructor(options: TelegramInboundOptions) {
    this.#o = options;
  }

  /**
   * Takes one update: checks its shape, converts it, remembers a tap's query for its answer, and hands
   * it to the pipeline. Resolves once the update is recorded ('taken': safe to acknowledge) or when
   * Kazma is stopping ('stopping': do not acknowledge). Rejects with InvalidInboundEventError for a
   * malformed update and with InboxUnavailableError when it could not be recorded, so the caller keeps
   * it for Telegram to deliver again. The turn itself runs on without being waited for.
   */
  async take(raw: unknown): Promise<'taken' | 'stopping'> {
    const parsed = parseUpdate(raw);
    if (!parsed.ok) throw new InvalidInboundEventError(`a Telegram update: ${parsed.reason}`);
    const update = parsed.update;
    this.#highest = Math.max(this.#highest, update.update_id);
    const query = update.callback_query;
    const event = toEvent(update, this.#o.me(), this.#o.groups, this.#o.codec);
    if (!event) {
      if (query) this.#inflight.track(this.#o.answers.answerNow(query.id));
      return 'taken';
    }
    if (query) {
      const message = query.message;
      this.#o.answers.open({
        id: query.id,
        chatId: String(message?.chat.id),
        actorId: event.actor.id,
        ...(message && { messageKey: messageKeyOf(message.chat.id, message.message_id) }),
      });
    }
    let accepted: Accepted;
    try {
      accepted = await this.#o.pipeline.accept(event);
    } catch (error) {
      if (query)
        await this.#o.answers.finish(
          query.id,
          '⚠️ Kazma could not take that in just now; it will be handled when Telegram sends it again.',
        );
      throw error;
    }
    if (accepted.status === 'stopping') {
      if (query) await this.#o.answers.finish(query.id, STOPPING);
      return 'stopping';
    }
    this.#inflight.track(
      accepted.done.then(
        async (outcome) => {
          if (event.kind === 'message') this.#o.typing.stop(event.chat);
          if (query)
            await this.#o.answers.finish(
              query.id,
              outcome === 'handled' ? doneText(query) : outcome === 'stopping' ? STOPPING : '',
            );
        },
        async (error: unknown) => {
          this.#o.logger?.error({ err: error, update: update.update_id }, 'handling a Telegram update failed');
          if (query) await this.#o.answers.finish(query.id, '⚠️ That did not work; the details are in Kazma’s log.');
        },
      ),
    );
    return 'taken';
  }

  /** The highest update_id taken so far (0 before the first). */
  get highestUpdateId(): number {
    return this.#highest;
  }

  /** Resolves when every update taken so far has been handled (turns finished or paused). */
  idle(): Promise<void> {
    return this.#inflight.idle();
  }
}

const STOPPING = 'Kazma is restarting; tap again in a minute.';

function doneText(query: NonNullable<Update['callback_query']>): string {
  const label =
    query.data === undefined
      ? undefined
      : tappedLabel(
          query.message && 'reply_markup' in query.message ? query.message.reply_markup : undefined,
          query.data,
        );
  return label ? `${label} ✓` : '✓';
}

/** The event an update means for Kazma, or undefined for updates Kazma does not act on. */
export function toEvent(update: Update, me: Me, groups: GroupMode, codec: CallbackCodec): InboundEvent | undefined {
  const eventId = String(update.update_id);
  const query = update.callback_query;
  if (query) {
    if (query.data === undefined || !query.message) return undefined; // games and inline-mode buttons
    const chat = chatRefOf(query.message);
    return {
      kind: 'action',
      eventId,
      platform: PLATFORM,
      chat,
      actor: actorOf(query.from),
      fromSelf: query.from.id === me.id,
      actionId: codec.decode(query.data),
      message: { chat, id: String(query.message.message_id) },
    };
  }
  const message = update.message;
  if (!message?.from) return undefined;
  const attachments = attachmentsOf(message);
  const written = message.text ?? message.caption ?? (attachments.length > 0 ? '' : undefined);
  if (written === undefined) return undefined;
  const addressed = addressedText({ ...message, text: written }, me, groups, attachments.length > 0);
  if (addressed === undefined) return undefined;
  const text = asDenyReason(addressed, message.reply_to_message, me.id);
  return {
    kind: 'message',
    eventId,
    platform: PLATFORM,
    chat: chatRefOf(message),
    actor: actorOf(message.from),
    fromSelf: message.from.id === me.id,
    ...(message.chat.type === 'private' && { direct: true }),
    text,
    ...(attachments.length > 0 && { attachments }),
  };
}

/**
 * The text for Kazma, or undefined when the message is not for this bot: a command addressed to
 * another bot (`/help@other_bot`), or — in a group with `groups: mention` — a message that neither
 * mentions the bot, nor replies to it, nor is a command. A leading mention of the bot is removed.
 */
export function addressedText(
  message: Message & { text: string },
  me: Me,
  groups: GroupMode,
  file = false,
): string | undefined {
  const { text } = message;
  const command = /^\/[A-Za-z0-9_]+(?:@([A-Za-z0-9_]+))?/.exec(text);
  const commandFor = command?.[1];
  if (commandFor !== undefined && commandFor.toLowerCase() !== me.username.toLowerCase()) return undefined;
  if (message.chat.type === 'private' || groups === 'all') return text;
  const mention = new RegExp(`(^|[^\\w@])@${me.username}(?![\\w])`, 'i');
  const mentioned =
    mention.test(text) ||
    (file && (message.caption_entities ?? []).some((e) => e.type === 'text_mention' && e.user?.id === me.id)) ||
    (message.entities ?? []).some((e) => e.type === 'text_mention' && e.user?.id === me.id);
  const repliedTo = message.reply_to_message?.from?.id === me.id;
  if (!mentioned && !repliedTo && !command) return undefined;
  const leading = new RegExp(`^\\s*@${me.username}(?![\\w])[\\s,:]*`, 'i');
  const stripped = text.replace(leading, '');
  return stripped.trim() === '' && !file ? text : stripped;
}

// Discord gateway events as InboundEvents, as pure functions over small views of discord.js objects (so
// the rules are testable without a gateway). The event id is Discord's snowflake of the message or the
// interaction — unique across both — so the pipeline's durable dedupe drops a replayed dispatch.
import type { Attachment, InboundAction, InboundCommand, InboundMessage } from '../../core/surface/index.ts';
import { actorOf, chatRefOf, PLATFORM, type ChannelPlace, type DiscordUserLike } from './ids.ts';

/** Which guild messages reach Kazma: only those that mention the bot (or reply to it), or every one. */
export type GuildMode = 'mention' | 'all';

/** What Kazma reads of a message. */
export interface MessageView {
  id: string;
  place: ChannelPlace;
  /** False in a DM. */
  inGuild: boolean;
  author: DiscordUserLike & { bot: boolean };
  content: string;
  /** A user message (default or reply), not a system message (pins, joins, thread starts). */
  fromUser: boolean;
  /** The message replies to one of the bot's messages. */
  repliedToBot: boolean;
  /** Its files, by reference. */
  attachments?: Attachment[];
}

/** What Kazma reads of a tap or a slash command. */
export interface InteractionView {
  id: string;
  place: ChannelPlace;
  user: DiscordUserLike;
}

/**
 * The event a message means for Kazma, or undefined when it is not for this bot: another bot's or a
 * webhook's message, a system message, an empty one, or — in a guild with `mention` mode — a message
 * that neither mentions the bot nor replies to it. The bot's own messages come back marked `fromSelf`.
 */
export function messageEvent(view: MessageView, botId: string, mode: GuildMode): InboundMessage | undefined {
  const self = view.author.id === botId;
  if ((view.author.bot && !self) || !view.fromUser) return undefined;
  const files = view.attachments ?? [];
  const text = addressedText(view, botId, mode, files.length > 0);
  if (text === undefined || (text.trim() === '' && files.length === 0)) return undefined;
  return {
    kind: 'message',
    eventId: view.id,
    platform: PLATFORM,
    chat: chatRefOf(view.place),
    actor: actorOf(view.author),
    fromSelf: self,
    ...(!view.inGuild && { direct: true }),
    text,
    ...(files.length > 0 && { attachments: files }),
  };
}

/**
 * The text for Kazma: in a DM or in `all` mode every message; in `mention` mode only a message that
 * mentions the bot (`<@id>` or `<@!id>`) or replies to it. A leading mention of the bot is removed.
 */
export function addressedText(
  view: Pick<MessageView, 'content' | 'inGuild' | 'repliedToBot'>,
  botId: string,
  mode: GuildMode,
  file = false,
): string | undefined {
  const mention = new RegExp(`<@!?${botId}>`);
  if (view.inGuild && mode === 'mention' && !mention.test(view.content) && !view.repliedToBot) return undefined;
  const stripped = view.content.replace(new RegExp(`^\\s*<@!?${botId}>[\\s,:]*`), '');
  // A mention alone is the text, unless a file came with it: then the file is what was said.
  return stripped.trim() === '' && !file ? view.content : stripped;
}

/** A tap on a button: the custom_id is the core's button id. */
export function actionEvent(view: InteractionView, customId: string, messageId: string, botId: string): InboundAction {
  const chat = chatRefOf(view.place);
  return {
    kind: 'action',
    eventId: view.id,
    platform: PLATFORM,
    chat,
    actor: actorOf(view.user),
    fromSelf: view.user.id === botId,
    actionId: customId,
    message: { chat, id: messageId },
  };
}

/**
 * A slash command; its optional `args` text becomes the words the core's commands read. Its answers
 * are private (ephemeral), as Discord users expect of slash commands.
 */
export function commandEvent(view: InteractionView, name: string, args: string | null | undefined): InboundCommand {
  const words = (args ?? '').trim();
  return {
    kind: 'command',
    eventId: view.id,
    platform: PLATFORM,
    chat: chatRefOf(view.place),
    actor: actorOf(view.user),
    name,
    args: words === '' ? [] : words.split(/\s+/),
    answerPrivately: true,
  };
}

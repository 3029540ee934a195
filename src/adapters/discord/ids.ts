// Discord ids as the core sees them. A channel or a DM is `discord:<channel id>`; a thread is its own
// conversation under its parent, `discord:<parent channel id>:<thread id>` — so `access.chats` naming
// the parent also covers its threads, as with Slack threads and Telegram topics. Threads are channels
// on Discord, so a thread is sent to by its own id. A person is their user id, never their name.
import { formatChatRef, parseChatRef, type Actor, type ChatRef, type MessageRef } from '../../core/surface/index.ts';

export const PLATFORM = 'discord';

/** Where a message was written: the channel, and its parent when the channel is a thread. */
export interface ChannelPlace {
  channelId: string;
  /** Set when `channelId` is a thread. */
  parentId?: string | null;
}

/**
 * The ChatRef of a channel, DM or thread.
 * @example chatRefOf({ channelId: '22', parentId: '11' }) // 'discord:11:22'
 */
export function chatRefOf(place: ChannelPlace): ChatRef {
  return place.parentId
    ? formatChatRef({ platform: PLATFORM, chat: place.parentId, thread: place.channelId })
    : formatChatRef({ platform: PLATFORM, chat: place.channelId });
}

/**
 * The channel to post to for a ChatRef: the thread when it names one, else the channel.
 * @example channelOf('discord:11:22') // '22'
 */
export function channelOf(chat: ChatRef): string {
  const parts = parseChatRef(chat);
  if (parts.platform !== PLATFORM) throw new Error(`${chat} is not a Discord chat reference`);
  return parts.thread ?? parts.chat;
}

/** A sent message's reference (the message id; the channel follows from the ChatRef). */
export function messageRefOf(chat: ChatRef, messageId: string): MessageRef {
  return { chat, id: messageId };
}

/** What Discord tells about a user. */
export interface DiscordUserLike {
  id: string;
  username: string;
  globalName?: string | null;
}

/** The Actor for a Discord user; the display name is the global name, else the username. */
export function actorOf(user: DiscordUserLike): Actor {
  return { platform: PLATFORM, id: user.id, displayName: user.globalName || user.username };
}

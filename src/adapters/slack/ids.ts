// Slack ids as the core sees them. A conversation is `slack:<channel>` (a DM `D…`, a channel `C…`, a
// private channel `G…`); a thread is its own conversation, `slack:<channel>:<thread_ts>`. A message is
// known by its `ts`, with the channel in MessageRef.chat. A person is their user id (`U…`), never a name.
import { formatChatRef, parseChatRef, type Actor, type ChatRef, type MessageRef } from '../../core/surface/index.ts';

export const PLATFORM = 'slack';

/** Where to post in Slack: the channel, and the thread when the ChatRef names one. */
export interface SlackTarget {
  channel: string;
  threadTs?: string;
}

/** The ChatRef of a channel, or of one thread in it. */
export function chatRefOf(channel: string, threadTs?: string): ChatRef {
  return formatChatRef({ platform: PLATFORM, chat: channel, ...(threadTs !== undefined && { thread: threadTs }) });
}

/**
 * Reads a Slack ChatRef.
 * @example targetOf('slack:C0123:1712345678.000100') // { channel: 'C0123', threadTs: '1712345678.000100' }
 */
export function targetOf(chat: ChatRef): SlackTarget {
  const parts = parseChatRef(chat);
  if (parts.platform !== PLATFORM) throw new Error(`${chat} is not a Slack chat reference`);
  return parts.thread === undefined ? { channel: parts.chat } : { channel: parts.chat, threadTs: parts.thread };
}

/** A sent message's reference: its `ts`. */
export function messageRefOf(chat: ChatRef, ts: string): MessageRef {
  return { chat, id: ts };
}

/**
 * The Actor for a Slack user. No display name: Slack usernames are not what people call each other,
 * so the core names an operator by their kazma.yaml name ("approved by maya on Slack").
 */
export function actorOf(userId: string): Actor {
  return { platform: PLATFORM, id: userId };
}

/** The bot itself, as auth.test reports it. */
export interface SlackIdentity {
  /** The bot user's id (`U…`): what `<@…>` mentions of the bot contain. */
  userId: string;
  /** The bot's id (`B…`): set on messages the app posted. */
  botId: string;
  team: string;
  /** The workspace's id (`T…`). */
  teamId?: string;
  /** The bot's username. */
  user: string;
}

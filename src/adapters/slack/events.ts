// Slack payloads as InboundEvents, as pure functions. DMs are conversations; in channels Kazma answers a
// mention (`app_mention`) in a thread of its own, and replies in threads it takes part in. The event id
// is the Events API `event_id`, so the pipeline's durable dedupe drops Slack's retries; clicks and slash
// commands use their `trigger_id`.
import type { InboundAction, InboundCommand, InboundEvent } from '../../core/surface/index.ts';
import { attachmentsOf, type SlackFile } from './files.ts';
import { slackTextToPlain, stripBotMention } from './format.ts';
import { actorOf, chatRefOf, PLATFORM, type SlackIdentity } from './ids.ts';
import type { KnownThreads } from './threads.ts';

/** The fields of a `message` / `app_mention` event Kazma reads. */
export interface SlackMessageEvent {
  type: string;
  subtype?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  ts: string;
  thread_ts?: string;
  channel: string;
  channel_type?: string;
  files?: SlackFile[];
}

/** The fields of a `block_actions` payload Kazma reads. */
export interface SlackActionBody {
  type: string;
  trigger_id?: string;
  user: { id: string };
  channel?: { id: string };
  container?: { channel_id?: string; message_ts?: string };
  message?: { ts: string; thread_ts?: string };
  actions?: Array<{ action_id: string; action_ts?: string }>;
}

/** The fields of a slash command Kazma reads. */
export interface SlackCommandBody {
  command: string;
  text?: string;
  user_id: string;
  channel_id: string;
  trigger_id?: string;
}

/** Message subtypes that are someone writing; edits, joins, deletions and the like are not. */
const WRITTEN = new Set([undefined, 'thread_broadcast', 'file_share', 'bot_message']);

/**
 * The event a `message` means for Kazma: every message in a DM; in a channel only a thread reply in a
 * thread Kazma takes part in, without a mention of the bot (that one arrives as `app_mention` too).
 * Other bots are ignored (two bots answering each other would never stop); Kazma's own messages are
 * passed on marked `fromSelf`, and the pipeline drops them.
 */
export function messageEvent(
  e: SlackMessageEvent,
  eventId: string,
  me: SlackIdentity,
  threads: KnownThreads,
): InboundEvent | undefined {
  if (!WRITTEN.has(e.subtype) || e.text === undefined) return undefined;
  const self = e.user === me.userId || e.bot_id === me.botId;
  if (!self && (e.bot_id !== undefined || e.user === undefined)) return undefined;
  const threadTs = e.thread_ts !== undefined && e.thread_ts !== e.ts ? e.thread_ts : undefined;
  const chat = chatRefOf(e.channel, threadTs);
  if (e.channel_type !== 'im') {
    if (threadTs === undefined || !threads.has(chat) || e.text.includes(`<@${me.userId}`)) return undefined;
  }
  const text = slackTextToPlain(stripBotMention(e.text, me.userId));
  const attachments = attachmentsOf(e.files);
  return {
    kind: 'message',
    eventId,
    platform: PLATFORM,
    chat,
    actor: actorOf(e.user ?? me.userId),
    fromSelf: self,
    ...(e.channel_type === 'im' && { direct: true }),
    text,
    ...(attachments.length > 0 && { attachments }),
  };
}

/** A mention in a channel: the conversation is the mention's thread (a new one when it was top level). */
export function mentionEvent(e: SlackMessageEvent, eventId: string, me: SlackIdentity): InboundEvent | undefined {
  if (e.user === undefined || e.text === undefined) return undefined;
  const chat = chatRefOf(e.channel, e.thread_ts ?? e.ts);
  const text = slackTextToPlain(stripBotMention(e.text, me.userId));
  const attachments = attachmentsOf(e.files);
  return {
    kind: 'message',
    eventId,
    platform: PLATFORM,
    chat,
    actor: actorOf(e.user),
    fromSelf: e.user === me.userId,
    text,
    ...(attachments.length > 0 && { attachments }),
  };
}

/** A click on a card button; the chat is the card's (its thread when the card was posted in one). */
export function actionEvent(body: SlackActionBody): InboundAction | undefined {
  const action = body.actions?.[0];
  const channel = body.channel?.id ?? body.container?.channel_id;
  if (body.type !== 'block_actions' || !action || !channel) return undefined;
  // A thread's parent carries thread_ts equal to its own ts; only a reply lives in the thread.
  const threadTs =
    body.message?.thread_ts !== undefined && body.message.thread_ts !== body.message.ts
      ? body.message.thread_ts
      : undefined;
  const chat = chatRefOf(channel, threadTs);
  const messageTs = body.container?.message_ts ?? body.message?.ts;
  return {
    kind: 'action',
    eventId: body.trigger_id ?? `${action.action_ts}:${body.user.id}`,
    platform: PLATFORM,
    chat,
    actor: actorOf(body.user.id),
    actionId: action.action_id,
    ...(messageTs !== undefined && { message: { chat, id: messageTs } }),
  };
}

/**
 * `/kazma approvals grants` → the command `approvals` with args `['grants']`, answered privately;
 * `/kazma` alone is `/kazma help`.
 */
export function commandEvent(c: SlackCommandBody): InboundCommand {
  const [first = 'help', ...args] = slackTextToPlain(c.text ?? '')
    .trim()
    .split(/\s+/)
    .filter((w) => w !== '');
  return {
    kind: 'command',
    eventId: c.trigger_id ?? `${c.channel_id}:${c.user_id}:${Date.now()}`,
    platform: PLATFORM,
    chat: chatRefOf(c.channel_id),
    actor: actorOf(c.user_id),
    name: first.replace(/^\//, '').toLowerCase() || 'help',
    args,
    answerPrivately: true,
  };
}

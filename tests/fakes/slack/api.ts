// The Web API methods the fake implements and what a response URL does with a body. Each handler
// mutates the store and returns Slack's JSON answer; platform errors are `{ok:false, error}` with
// the strings Slack uses, so WebClient raises `slack_webapi_platform_error` exactly as in production.
import { checkMessage, isError, type SlackErrorBody } from './limits.ts';
import { wireMessage, type SlackStore, type ResponseTarget, type StoredMessage } from './store.ts';

export type ApiResult = Record<string, unknown>;
type Handler = (args: Record<string, unknown>, store: SlackStore) => ApiResult;

const err = (error: string): SlackErrorBody => ({ ok: false, error });
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Channel ids Slack issues: C public, G private (legacy), D direct message. */
export const channelKind = (id: string): 'channel' | 'group' | 'im' | undefined =>
  /^C[A-Z0-9]{2,}$/.test(id)
    ? 'channel'
    : /^G[A-Z0-9]{2,}$/.test(id)
      ? 'group'
      : /^D[A-Z0-9]{2,}$/.test(id)
        ? 'im'
        : undefined;
const isUserId = (id: string | undefined): id is string => id !== undefined && /^[UW][A-Z0-9]{2,}$/.test(id);

export const methods: Record<string, Handler> = {
  'auth.test': (_args, s) => ({
    ok: true,
    url: `https://${s.id.teamId.toLowerCase()}.slack.com/`,
    team: 'Fake Workspace',
    user: 'kazma',
    team_id: s.id.teamId,
    user_id: s.id.botUserId,
    bot_id: s.id.botId,
    is_enterprise_install: false,
  }),

  'chat.postMessage': (args, s) => {
    const channel = str(args.channel);
    if (!channel || !channelKind(channel)) return err('channel_not_found');
    const content = checkMessage(args);
    if (isError(content)) return content;
    const m = s.post(channel, s.id.botUserId, content, str(args.thread_ts));
    return { ok: true, channel, ts: m.ts, message: wireMessage(m, s.id) };
  },

  'chat.update': (args, s) => {
    const channel = str(args.channel);
    if (!channel || !channelKind(channel)) return err('channel_not_found');
    const m = s.find(channel, str(args.ts) ?? '');
    if (!m) return err('message_not_found');
    if (m.user !== s.id.botUserId) return err('cant_update_message'); // a bot token edits only its own messages
    const content = checkMessage(args);
    if (isError(content)) return content;
    s.edit(m, content);
    return { ok: true, channel, ts: m.ts, text: m.text, message: wireMessage(m, s.id) };
  },

  'chat.postEphemeral': (args, s) => {
    const channel = str(args.channel);
    if (!channel || !channelKind(channel)) return err('channel_not_found');
    const user = str(args.user);
    if (!isUserId(user)) return err('user_not_found');
    const content = checkMessage(args);
    if (isError(content)) return content;
    const threadTs = str(args.thread_ts);
    const e = s.addEphemeral({
      channel,
      user,
      text: content.text ?? '',
      via: 'chat.postEphemeral',
      ...(content.blocks ? { blocks: content.blocks } : {}),
      ...(threadTs ? { thread_ts: threadTs } : {}),
    });
    return { ok: true, message_ts: e.ts };
  },

  'chat.delete': (args, s) => {
    const channel = str(args.channel);
    if (!channel || !channelKind(channel)) return err('channel_not_found');
    const ts = str(args.ts) ?? '';
    const m = s.find(channel, ts);
    if (!m) return err('message_not_found');
    if (m.user !== s.id.botUserId) return err('cant_delete_message');
    s.remove(channel, ts);
    return { ok: true, channel, ts };
  },

  // The status an AI app's thread shows under its last message ("is thinking…"); cleared by Slack when
  // the app replies in the thread. Workspaces without AI apps answer unknown_method / not_allowed (failNext).
  'assistant.threads.setStatus': (args) => {
    const channel = str(args.channel_id);
    if (!channel || !channelKind(channel)) return err('channel_not_found');
    if (!str(args.thread_ts) || typeof args.status !== 'string') return err('invalid_arguments');
    return { ok: true };
  },

  'conversations.info': (args, s) => {
    const id = str(args.channel) ?? '';
    const kind = channelKind(id);
    if (!kind) return err('channel_not_found');
    return {
      ok: true,
      channel: {
        id,
        name: kind === 'im' ? undefined : id.toLowerCase(),
        created: 1_700_000_000,
        context_team_id: s.id.teamId,
        is_channel: kind === 'channel',
        is_group: kind === 'group',
        is_im: kind === 'im',
        is_mpim: false,
        is_private: kind !== 'channel',
        is_archived: false,
        is_member: true,
      },
    };
  },

  // Top-level messages (thread parents included, replies not), newest first; metadata only when asked for.
  'conversations.history': (args, s) => {
    const channel = str(args.channel);
    if (!channel || !channelKind(channel)) return err('channel_not_found');
    const top = s.messages(channel).filter((m) => m.thread_ts === undefined || m.thread_ts === m.ts);
    return { ok: true, messages: listed(top.reverse(), args, s), has_more: false };
  },

  // A thread: its parent, then its replies, oldest first.
  'conversations.replies': (args, s) => {
    const channel = str(args.channel);
    if (!channel || !channelKind(channel)) return err('channel_not_found');
    const ts = str(args.ts) ?? '';
    const thread = s.messages(channel).filter((m) => m.ts === ts || m.thread_ts === ts);
    if (thread.length === 0) return err('thread_not_found');
    return { ok: true, messages: listed(thread, args, s), has_more: false };
  },

  'users.info': (args, s) => {
    const id = str(args.user);
    if (!isUserId(id)) return err('user_not_found');
    const isBot = id === s.id.botUserId;
    const name = isBot ? 'kazma' : id.toLowerCase();
    return {
      ok: true,
      user: {
        id,
        team_id: s.id.teamId,
        name,
        real_name: name,
        deleted: false,
        is_bot: isBot,
        tz: 'UTC',
        profile: { real_name: name, display_name: name, ...(isBot ? { bot_id: s.id.botId } : {}) },
      },
    };
  },
};

const truthy = (v: unknown): boolean => v === true || v === 'true';

/** A history page as Slack lists it: at most `limit` (default 100), metadata only with include_all_metadata. */
function listed(messages: StoredMessage[], args: Record<string, unknown>, s: SlackStore): ApiResult[] {
  const limit = Number(args.limit ?? 100) || 100;
  return messages.slice(0, limit).map((m) => {
    const { metadata, ...wire } = wireMessage(m, s.id);
    return truthy(args.include_all_metadata) && metadata !== undefined ? { ...wire, metadata } : wire;
  });
}

/**
 * A body POSTed to a response URL. `delete_original` / `replace_original: true` act on the message
 * that carried the clicked button; otherwise `response_type: 'in_channel'` posts a visible message
 * and anything else (the default, 'ephemeral') shows only to the user who acted.
 */
export function respond(
  target: ResponseTarget,
  body: Record<string, unknown>,
  s: SlackStore,
  via: 'response_url' | 'slash_ack',
): ApiResult {
  const original =
    target.messageTs === undefined
      ? undefined
      : target.ephemeral
        ? s.findEphemeral(target.channel, target.messageTs)
        : s.find(target.channel, target.messageTs);
  if (truthy(body.delete_original)) {
    if (!original) return err('message_not_found');
    if ('edits' in original) s.remove(target.channel, original.ts);
    else s.removeEphemeral(original);
    return { ok: true };
  }
  const content = checkMessage(body);
  if (isError(content)) return content;
  const threadTs = str(body.thread_ts);
  if (truthy(body.replace_original) && original) {
    if ('edits' in original) s.edit(original, content);
    else
      Object.assign(
        original,
        { text: content.text ?? original.text },
        content.blocks ? { blocks: content.blocks } : {},
      );
    return { ok: true };
  }
  if (body.response_type === 'in_channel') s.post(target.channel, s.id.botUserId, content, threadTs);
  else {
    s.addEphemeral({
      channel: target.channel,
      user: target.user,
      text: content.text ?? '',
      via,
      ...(content.blocks ? { blocks: content.blocks } : {}),
      ...(threadTs ? { thread_ts: threadTs } : {}),
    });
  }
  return { ok: true };
}

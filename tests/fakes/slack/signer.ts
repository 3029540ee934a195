// Plays Slack towards the app's Request URL: builds the exact bodies Slack sends (Events API JSON,
// form-encoded `payload=` for interactivity, form fields for slash commands), signs the raw bytes
// with the signing secret, and POSTs them. Raw helpers send deliberately bad requests.
import { createHmac } from 'node:crypto';
import { channelKind } from './api.ts';
import type { FileInput } from './files.ts';
import type { Block } from './limits.ts';
import { wireMessage, type SlackStore, type ResponseTarget } from './store.ts';
import type { SlackViews } from './views.ts';

/** What the app answered. */
export interface Delivery {
  status: number;
  body: string;
  headers: Headers;
}

export interface PostOptions {
  contentType?: string;
  /** Unix seconds for X-Slack-Request-Timestamp; default now. */
  timestamp?: number;
  /** Sign with this secret instead of the real one (a forgery). */
  secret?: string;
  /** Send neither signature header. */
  unsigned?: boolean;
  headers?: Record<string, string>;
}

export interface EventOptions {
  eventId?: string;
  retryNum?: number;
  retryReason?: string;
}

export interface SignerWorld {
  secret: string;
  store: SlackStore;
  /** Issues a response URL on the fake for this target. */
  responseUrl(target: ResponseTarget): string;
  /** A slash command's non-empty 200 body is shown to the user, as Slack does. */
  slashAck(responseUrl: string, body: Record<string, unknown>): void;
  /** Stores shared files; their entries as an event lists them. */
  shareFiles(files: FileInput[]): Array<Record<string, unknown>>;
  /** Issues trigger_ids and keeps the modals they open. */
  views: SlackViews;
}

export type SlackSigner = ReturnType<typeof createSigner>;

const nowSec = (): number => Math.floor(Date.now() / 1000);
const form = (fields: Record<string, string>): string => new URLSearchParams(fields).toString();
const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';

export function createSigner(world: SignerWorld) {
  const id = world.store.id;
  let seq = 0;
  const nextId = (prefix: string): string => `${prefix}${(++seq).toString(36).toUpperCase().padStart(9, '0')}`;

  /** Slack's v0 signature over the exact raw body. */
  function sign(raw: string, opts: { timestamp?: number; secret?: string } = {}): Record<string, string> {
    const ts = String(opts.timestamp ?? nowSec());
    const sig = createHmac('sha256', opts.secret ?? world.secret)
      .update(`v0:${ts}:${raw}`)
      .digest('hex');
    return { 'X-Slack-Signature': `v0=${sig}`, 'X-Slack-Request-Timestamp': ts };
  }

  async function post(url: string, raw: string, opts: PostOptions = {}): Promise<Delivery> {
    const signed = opts.unsigned ? {} : sign(raw, opts);
    const res = await fetch(url, {
      method: 'POST',
      body: raw,
      headers: {
        'Content-Type': opts.contentType ?? JSON_TYPE,
        'User-Agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
        ...signed,
        ...opts.headers,
      },
    });
    return { status: res.status, body: await res.text(), headers: res.headers };
  }

  async function sendEvent(url: string, event: Record<string, unknown>, opts: EventOptions = {}) {
    const eventId = opts.eventId ?? nextId('Ev');
    const envelope = {
      token: 'fake-verification-token',
      team_id: id.teamId,
      api_app_id: id.appId,
      event: { event_ts: event.ts ?? `${nowSec()}.000000`, ...event },
      type: 'event_callback',
      event_id: eventId,
      event_time: nowSec(),
      authorizations: [
        { enterprise_id: null, team_id: id.teamId, user_id: id.botUserId, is_bot: true, is_enterprise_install: false },
      ],
      is_ext_shared_channel: false,
      event_context: `4-${eventId}`,
    };
    const headers: Record<string, string> = {};
    if (opts.retryNum !== undefined) {
      headers['X-Slack-Retry-Num'] = String(opts.retryNum);
      headers['X-Slack-Retry-Reason'] = opts.retryReason ?? 'http_timeout';
    }
    return { ...(await post(url, JSON.stringify(envelope), { headers })), eventId };
  }

  /**
   * A user posts `text`: stored in the channel history, then delivered as a `message` event, and
   * also as `app_mention` when it mentions the bot in a channel (Slack never sends app_mention in DMs).
   */
  async function sendMessage(
    url: string,
    m: {
      channel: string;
      user: string;
      text: string;
      thread_ts?: string;
      channelType?: 'im' | 'channel' | 'group';
      /** Files shared with the message: a `file_share` event listing them. */
      files?: FileInput[];
    },
  ) {
    const kind = channelKind(m.channel);
    const channelType = m.channelType ?? kind;
    if (!kind || channelType !== kind)
      throw new Error(`fake Slack: channel ${m.channel} is not a valid ${channelType ?? ''} id (C…, G… or D…)`);
    const stored = world.store.post(m.channel, m.user, { text: m.text }, m.thread_ts);
    const base = {
      user: m.user,
      text: m.text,
      ts: stored.ts,
      channel: m.channel,
      team: id.teamId,
      event_ts: stored.ts,
      ...(m.thread_ts ? { thread_ts: m.thread_ts } : {}),
      ...(m.files && { subtype: 'file_share', files: world.shareFiles(m.files) }),
    };
    const message = await sendEvent(url, { type: 'message', ...base, channel_type: channelType });
    const mentions = channelType !== 'im' && m.text.includes(`<@${id.botUserId}>`);
    const mention = mentions ? await sendEvent(url, { type: 'app_mention', ...base }) : undefined;
    return { ts: stored.ts, message, ...(mention ? { mention } : {}) };
  }

  /** A click on a button that really is in the stored message (or ephemeral) `messageTs`. */
  async function sendBlockAction(
    url: string,
    a: { channel: string; user: string; messageTs: string; actionId: string; value?: string; blockId?: string },
  ) {
    const msg = world.store.find(a.channel, a.messageTs);
    const eph = msg ? undefined : world.store.findEphemeral(a.channel, a.messageTs);
    const blocks: Block[] = msg?.blocks ?? eph?.blocks ?? [];
    if (!msg && !eph) throw new Error(`fake Slack: no message ${a.messageTs} in ${a.channel} to click on`);
    const found = findButton(blocks, a.actionId, a.blockId);
    if (!found)
      throw new Error(
        `fake Slack: message ${a.messageTs} has no button ${a.actionId}${a.blockId ? ` in block ${a.blockId}` : ''}`,
      );
    const responseUrl = world.responseUrl({
      channel: a.channel,
      user: a.user,
      messageTs: a.messageTs,
      ephemeral: !!eph,
    });
    const { button, blockId } = found;
    const payload = {
      type: 'block_actions',
      user: { id: a.user, username: a.user.toLowerCase(), name: a.user.toLowerCase(), team_id: id.teamId },
      api_app_id: id.appId,
      token: 'fake-verification-token',
      container: { type: 'message', message_ts: a.messageTs, channel_id: a.channel, is_ephemeral: !!eph },
      trigger_id: world.views.trigger(a.user),
      team: { id: id.teamId, domain: id.teamId.toLowerCase() },
      enterprise: null,
      is_enterprise_install: false,
      channel: { id: a.channel, name: a.channel.toLowerCase() },
      ...(msg ? { message: wireMessage(msg, id) } : {}),
      state: { values: {} },
      response_url: responseUrl,
      actions: [
        {
          action_id: a.actionId,
          block_id: blockId,
          text: button.text,
          value: a.value ?? button.value,
          ...(button.style ? { style: button.style } : {}),
          type: 'button',
          action_ts: `${nowSec()}.000000`,
        },
      ],
    };
    return { ...(await post(url, form({ payload: JSON.stringify(payload) }), { contentType: FORM })), responseUrl };
  }

  async function sendSlashCommand(url: string, c: { command: string; text: string; user: string; channel: string }) {
    const responseUrl = world.responseUrl({ channel: c.channel, user: c.user });
    const body = form({
      token: 'fake-verification-token',
      team_id: id.teamId,
      team_domain: id.teamId.toLowerCase(),
      channel_id: c.channel,
      channel_name: channelKind(c.channel) === 'im' ? 'directmessage' : c.channel.toLowerCase(),
      user_id: c.user,
      user_name: c.user.toLowerCase(),
      command: c.command,
      text: c.text,
      api_app_id: id.appId,
      is_enterprise_install: 'false',
      response_url: responseUrl,
      trigger_id: world.views.trigger(c.user),
    });
    const d = await post(url, body, { contentType: FORM });
    if (d.status === 200 && d.body !== '') {
      const json = d.headers.get('content-type')?.includes('json');
      world.slashAck(responseUrl, json ? (JSON.parse(d.body) as Record<string, unknown>) : { text: d.body });
    }
    return { ...d, responseUrl };
  }

  /** `user` submits the open modal `viewId` with `values` (action_id → text): Slack's view_submission. */
  async function submitView(url: string, v: { viewId: string; user: string; values: Record<string, string> }) {
    const payload = world.views.submission(v);
    const d = await post(url, form({ payload: JSON.stringify(payload) }), { contentType: FORM });
    world.views.answered(v.viewId, d.status, d.body);
    return d;
  }

  const probe = (): string =>
    JSON.stringify({ token: 'fake-verification-token', challenge: 'probe', type: 'url_verification' });
  return {
    sign,
    post,
    sendEvent,
    sendMessage,
    sendBlockAction,
    sendSlashCommand,
    submitView,
    urlVerification: async (url: string, challenge = nextId('chal')) => ({
      ...(await post(url, JSON.stringify({ token: 'fake-verification-token', challenge, type: 'url_verification' }))),
      challenge,
    }),
    /** Slack's unsigned health probe; apps must answer 200 and do nothing. */
    sslCheck: (url: string) =>
      post(url, form({ ssl_check: '1', token: 'fake-verification-token' }), { contentType: FORM, unsigned: true }),
    sendForged: (url: string, raw = probe()) => post(url, raw, { secret: `${world.secret}-forged` }),
    // A minute past Slack's five-minute window: a request spends real time in flight (and nowSec() floors),
    // so a timestamp one second outside the window can arrive inside it. The exact edge is unit-tested
    // against a fixed clock (tests/adapters/slack/units.test.ts).
    sendStale: (url: string, raw = probe(), ageSec = 360) => post(url, raw, { timestamp: nowSec() - ageSec }),
    sendFuture: (url: string, raw = probe(), aheadSec = 360) => post(url, raw, { timestamp: nowSec() + aheadSec }),
    sendUnsigned: (url: string, raw = probe()) => post(url, raw, { unsigned: true }),
  };
}

function findButton(
  blocks: Block[],
  actionId: string,
  blockId?: string,
): { button: Block; blockId: string } | undefined {
  for (const b of blocks) {
    if (blockId !== undefined && b.block_id !== blockId) continue;
    const elements = (b.type === 'actions' && Array.isArray(b.elements) ? b.elements : [b.accessory]) as unknown[];
    const button = elements.find(
      (e): e is Block =>
        typeof e === 'object' && e !== null && (e as Block).type === 'button' && (e as Block).action_id === actionId,
    );
    if (button) return { button, blockId: String(b.block_id) };
  }
  return undefined;
}

// The Surface contract's driver for Slack: the harness (fake Slack + adapter + Kazma) seen through the
// platform-neutral SurfaceDriver interface. Chats are ChatRefs (`slack:<channel>[:<thread_ts>]`); a
// user writes through the fake's signer, which stores the message and posts the signed event.
import type {
  BotMessage,
  ContractChat,
  ContractUser,
  Decision,
  DriverFactory,
  SendAttempt,
  SurfaceDriver,
} from '../../contract/driver.ts';
import type { StoredMessage } from '../../fakes/slack/index.ts';
import {
  dmOf,
  LINA,
  MAYA,
  OMAR,
  SAM,
  startSlackHarness,
  type SlackHarness,
  type SlackHarnessOptions,
} from './harness.ts';
import { visibleMessage } from './visible.ts';

/** `slack:C1:171.2` → channel C1, thread 171.2. */
export function parseChat(chat: ContractChat): { channel: string; thread?: string } {
  const [, channel = '', thread] = chat.split(':');
  return { channel, ...(thread !== undefined && { thread }) };
}

/** A stored bot message as the contract sees it. */
export function botMessage(m: StoredMessage): BotMessage {
  const shown = visibleMessage(m);
  return { id: m.ts, text: shown.text, bold: shown.bold, buttons: shown.buttons, edits: m.edits.length };
}

/** The bot's messages in a conversation: a channel's top level, or one thread. */
export function botMessagesIn(h: SlackHarness, chat: ContractChat): StoredMessage[] {
  const { channel, thread } = parseChat(chat);
  return h.fake
    .messages(channel)
    .filter(
      (m) =>
        m.user === h.fake.identity.botUserId &&
        (thread === undefined ? m.thread_ts === undefined : m.thread_ts === thread),
    );
}

/** The bot's button for `decision` on `card`, as a user clicks it; the HTTP status Kazma answered. */
export async function clickDecision(
  h: Pick<SlackHarness, 'fake' | 'url'>,
  user: ContractUser,
  chat: ContractChat,
  cardTs: string,
  decision: Decision,
): Promise<number> {
  const { channel } = parseChat(chat);
  const stored = h.fake.messages(channel).find((m) => m.ts === cardTs);
  const actions = stored?.blocks?.find((b) => b.type === 'actions');
  const button = (actions?.elements as Array<{ action_id: string }> | undefined)?.find((e) =>
    e.action_id.endsWith(`:${decision}`),
  );
  if (!button) throw new Error(`message ${cardTs} in ${chat} shows no ${decision} button`);
  return (
    await h.fake.signer.sendBlockAction(h.url, {
      channel,
      user: user.id,
      messageTs: cardTs,
      actionId: button.action_id,
    })
  ).status;
}

export function slackDriver(options: Partial<SlackHarnessOptions> = {}): DriverFactory {
  return async (llm) => {
    const h = await startSlackHarness({ modelBaseUrl: llm.baseURL, welcome: true, ...options });
    const people = [MAYA, OMAR, LINA, SAM];
    const channels = new Set(people.map(dmOf));
    const taps: number[] = [];
    let last: { event: Record<string, unknown>; eventId: string } | undefined;

    const driver: SurfaceDriver = {
      platform: 'slack',
      limit: 40_000,
      operator: MAYA,
      operator2: OMAR,
      member: LINA,
      stranger: SAM,
      llm,
      workspace: h.workspace,
      opensWithStart: false,
      dm: (u) => `slack:${dmOf(u)}`,
      async userSays(u, text, o = {}) {
        const { channel, thread } = parseChat(o.chat ?? driver.dm(u));
        channels.add(channel);
        const channelType = channel.startsWith('D') ? 'im' : channel.startsWith('G') ? 'group' : 'channel';
        const sent = await h.fake.signer.sendMessage(h.url, {
          channel,
          user: u.id,
          text,
          ...(thread && { thread_ts: thread }),
        });
        const base = {
          user: u.id,
          text,
          ts: sent.ts,
          channel,
          team: h.fake.identity.teamId,
          event_ts: sent.ts,
          ...(thread && { thread_ts: thread }),
        };
        last = sent.mention
          ? { event: { type: 'app_mention', ...base }, eventId: sent.mention.eventId }
          : { event: { type: 'message', ...base, channel_type: channelType }, eventId: sent.message.eventId };
      },
      async selfSays(text, o = {}) {
        const { channel } = parseChat(o.chat ?? driver.dm(driver.operator));
        const { botUserId, botId } = h.fake.identity;
        const ts = `${Math.floor(Date.now() / 1000)}.900000`;
        const event = { type: 'message', user: botUserId, bot_id: botId, text, ts, channel, channel_type: 'im' };
        last = { event, eventId: (await h.fake.signer.sendEvent(h.url, event)).eventId };
      },
      botMessages: async (chat) => botMessagesIn(h, chat).map(botMessage),
      async tap(u, chat, card, decision: Decision) {
        taps.push(await clickDecision(h, u, chat, card.id, decision));
      },
      async privateAnswers(u) {
        const ephemeral = [...channels].flatMap((channel) => h.fake.ephemerals(channel, u.id));
        ephemeral.sort((a, b) => a.ts.localeCompare(b.ts));
        const direct = botMessagesIn(h, driver.dm(u));
        return [...ephemeral.map((e) => visibleMessage(e).text), ...direct.map((m) => botMessage(m).text)];
      },
      // Slack waits for an HTTP 200 to each click within 3 s; anything else is a click left hanging.
      unansweredTaps: async () => taps.filter((status) => status !== 200).length,
      async redeliverLast() {
        if (!last) throw new Error('nothing was delivered yet');
        // What Slack does when it saw no timely 200: the same event_id again, with the retry headers.
        await h.fake.signer.sendEvent(h.url, last.event, {
          eventId: last.eventId,
          retryNum: 1,
          retryReason: 'http_timeout',
        });
      },
      injectRateLimit(seconds) {
        h.fake.failNext('chat.postMessage', { status: 429, headers: { 'Retry-After': String(seconds) } });
      },
      sendAttempts: async (chat): Promise<SendAttempt[]> =>
        h.fake.calls
          .of('chat.postMessage', (c) => c.args.channel === parseChat(chat).channel)
          .map((c) => ({ at: c.at, ok: c.ok, status: c.status })),
      settled: () => h.settled(),
      close: () => h.close(),
    };
    return driver;
  };
}

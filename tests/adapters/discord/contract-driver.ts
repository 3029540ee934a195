// The Surface contract's driver for Discord: the harness (fake Discord + adapter + Kazma) seen through the
// platform-neutral SurfaceDriver interface. Chats are ChatRefs (`discord:<channel>[:<thread>]`); each
// user's DM is a fixed channel id (DM_OF).
import { Events, type ClientEvents, type Interaction } from 'discord.js';
import type {
  BotMessage,
  ContractChat,
  ContractUser,
  Decision,
  DriverFactory,
  SendAttempt,
  SurfaceDriver,
} from '../../contract/driver.ts';
import type { StoredMessage, UserInput } from '../../fakes/discord/fake-discord.ts';
import { DM_OF, LINA, MAYA, OMAR, SAM, startHarness, type Harness, type HarnessOptions } from './harness.ts';
import { visible } from './visible.ts';

const PEOPLE = [MAYA, OMAR, LINA, SAM];
const user = (u: UserInput): ContractUser => ({ id: u.id, name: u.global_name ?? u.username });
const dcUser = (u: ContractUser): UserInput =>
  PEOPLE.find((p) => p.id === u.id) ?? { id: u.id, username: u.name.toLowerCase(), global_name: u.name };

/** `discord:11:22` → channel 22 (the thread); `discord:11` → channel 11. */
const channelOf = (chat: ContractChat): string => chat.split(':').at(-1)!;

/** A stored bot message as the contract sees it: visible text, bold spans, buttons, edit count. */
export function botMessage(m: StoredMessage): BotMessage {
  const { text, bold } = visible(m.content);
  return {
    id: m.id,
    text,
    bold,
    buttons: m.components
      .flatMap((row) => row.components ?? [])
      .filter((c: { type: number }) => c.type === 2)
      .map((b: { label: string }) => b.label),
    edits: m.edits.length,
  };
}

export function discordDriver(options: Partial<HarnessOptions> = {}): DriverFactory {
  return async (llm) => {
    const h: Harness = await startHarness({ modelBaseUrl: llm.baseURL, welcome: true, ...options });
    const tappedBy = new Map<string, string>(); // interaction id -> user id
    const injected = new Set<string>(); // messages the test wrote as the bot (selfSays): not the bot's replies
    let last:
      | { kind: 'message'; value: ClientEvents[Events.MessageCreate][0] }
      | { kind: 'interaction'; value: Interaction }
      | undefined;
    h.platform.client.on(Events.MessageCreate, (value) => void (last = { kind: 'message', value }));
    h.platform.client.on(Events.InteractionCreate, (value) => void (last = { kind: 'interaction', value }));
    const botIn = (chat: ContractChat): StoredMessage[] =>
      h.fake
        .messages(channelOf(chat))
        .filter((m) => m.author.id === h.fake.bot.id && !m.deleted && !injected.has(m.id));

    const driver: SurfaceDriver = {
      platform: 'discord',
      limit: 2000,
      operator: user(MAYA),
      operator2: user(OMAR),
      member: user(LINA),
      stranger: user(SAM),
      llm,
      workspace: h.workspace,
      opensWithStart: false,
      dm: (u) => `discord:${DM_OF[u.id]}`,
      async userSays(u, text, o = {}) {
        const chat = o.chat ?? driver.dm(u);
        const dm = Object.values(DM_OF).includes(channelOf(chat));
        h.say({
          channelId: channelOf(chat),
          author: dcUser(u),
          content: text,
          guild: !dm,
          ...(!dm && { mentionsBot: true }),
        });
      },
      async selfSays(text, o = {}) {
        const chat = o.chat ?? driver.dm(driver.operator);
        const dm = Object.values(DM_OF).includes(channelOf(chat));
        const bot = { id: h.fake.bot.id, username: h.fake.bot.username, bot: true };
        const own = h.say({ channelId: channelOf(chat), author: bot, content: text, ...(dm && { guild: false }) });
        injected.add(own.id);
      },
      botMessages: async (chat) => botIn(chat).map(botMessage),
      async tap(u, chat, card, decision: Decision) {
        const stored = botIn(chat).find((m) => m.id === card.id);
        const customId = stored?.components
          .flatMap((row) => row.components ?? [])
          .map((c: { custom_id?: string }) => c.custom_id)
          .find((id) => id?.endsWith(`:${decision}`));
        if (!stored || !customId) throw new Error(`message ${card.id} in ${chat} shows no ${decision} button`);
        const click = h.click({ channelId: channelOf(chat), messageId: stored.id, user: dcUser(u), customId });
        tappedBy.set(click.id, u.id);
      },
      async privateAnswers(u) {
        const ephemeral = [...tappedBy]
          .filter(([, by]) => by === u.id)
          .flatMap(([id]) => {
            const r = h.fake.interactionResponses(id);
            return r.followUps
              .filter((m) => (m.flags & 64) !== 0)
              .map((m) => ({ at: Date.parse(m.timestamp), text: visible(m.content).text }));
          });
        const direct = botIn(driver.dm(u)).map((m) => ({ at: Date.parse(m.timestamp), text: visible(m.content).text }));
        return [...ephemeral, ...direct].sort((a, b) => a.at - b.at).map((a) => a.text);
      },
      async unansweredTaps() {
        return [...tappedBy.keys()].filter((id) => h.fake.interactionResponses(id).callbacks.length === 0).length;
      },
      async redeliverLast() {
        if (!last) throw new Error('nothing was delivered yet');
        // What discord.js does with a dispatch the gateway replays after a RESUME: the same event again.
        if (last.kind === 'message') h.platform.client.emit(Events.MessageCreate, last.value);
        else h.platform.client.emit(Events.InteractionCreate, last.value);
      },
      injectRateLimit(seconds) {
        h.fake.failNext('POST /channels/:id/messages', { status: 429, headers: { 'Retry-After': String(seconds) } });
      },
      sendAttempts: async (chat): Promise<SendAttempt[]> =>
        h.fake.calls
          .all('POST /channels/:id/messages', (c) => c.params.id === channelOf(chat))
          .map((c) => ({ at: c.at, ok: c.status < 300, status: c.status })),
      settled: () => h.settled(),
      close: () => h.close(),
    };
    return driver;
  };
}

// The Surface contract's driver for Telegram: the harness (fake Bot API + adapter + Kazma) seen through
// the platform-neutral SurfaceDriver interface. Chats are ChatRefs (`telegram:<chat>[:<topic>]`).
import type {
  BotMessage,
  ContractChat,
  ContractUser,
  Decision,
  DriverFactory,
  SendAttempt,
  SurfaceDriver,
} from '../../contract/driver.ts';
import type { StoredMessage, TgUpdate, TgUser } from '../../fakes/telegram/index.ts';
import { LINA, MAYA, OMAR, SAM, startHarness, type Harness, type HarnessOptions } from './harness.ts';

const user = (u: { id: number; first_name: string }): ContractUser => ({ id: String(u.id), name: u.first_name });
const tgUser = (u: ContractUser): { id: number; first_name: string } => ({ id: Number(u.id), first_name: u.name });

/** `telegram:-100:7` → chat -100, topic 7. */
function parse(chat: ContractChat): { chatId: number; topic?: number } {
  const [, id, topic] = chat.split(':');
  return { chatId: Number(id), ...(topic !== undefined && { topic: Number(topic) }) };
}

/** A stored bot message as the contract sees it: visible text, bold spans, buttons, edit count. */
export function botMessage(m: StoredMessage): BotMessage {
  return {
    id: String(m.message_id),
    text: m.text,
    bold: m.entities.filter((e) => e.type === 'bold').map((e) => m.text.slice(e.offset, e.offset + e.length)),
    buttons: (m.reply_markup?.inline_keyboard ?? []).flat().map((b) => b.text),
    edits: m.history.length,
  };
}

export function telegramDriver(options: Partial<HarnessOptions> = {}): DriverFactory {
  return async (llm) => {
    const h: Harness = await startHarness({ modelBaseUrl: llm.baseURL, ...options });
    const tappedBy = new Map<string, string>(); // callback query id -> user id
    let last: TgUpdate | undefined;
    const remember = (update: TgUpdate): void => {
      last = update;
    };
    const messagesIn = (chat: ContractChat): StoredMessage[] => {
      const { chatId, topic } = parse(chat);
      return h.fake.messages(chatId).filter((m) => topic === undefined || m.message_thread_id === topic);
    };
    const answersTo = (userId: string): string[] =>
      h.fake.calls
        .of('answerCallbackQuery')
        .filter(
          (c) =>
            c.ok &&
            tappedBy.get(String(c.body.callback_query_id)) === userId &&
            typeof c.body.text === 'string' &&
            c.body.text !== '',
        )
        .map((c) => String(c.body.text));

    const driver: SurfaceDriver = {
      platform: 'telegram',
      limit: 4096,
      operator: user(MAYA),
      operator2: user(OMAR),
      member: user(LINA),
      stranger: user(SAM),
      llm,
      workspace: h.workspace,
      opensWithStart: true,
      dm: (u) => `telegram:${u.id}`,
      async userSays(u, text, o = {}) {
        const { chatId, topic } = parse(o.chat ?? driver.dm(u));
        remember(h.say({ chatId, from: tgUser(u), text, ...(topic !== undefined && { messageThreadId: topic }) }));
      },
      async selfSays(text, o = {}) {
        const { chatId } = parse(o.chat ?? driver.dm(driver.operator));
        const bot: TgUser = h.fake.bot;
        const chat = { id: chatId, type: 'private' as const, first_name: 'Maya' };
        h.fake.addChat(chat);
        remember(
          h.push({ message: { message_id: 900_000, date: Math.floor(Date.now() / 1000), chat, from: bot, text } }),
        );
      },
      botMessages: async (chat) => messagesIn(chat).map(botMessage),
      async tap(u, chat, card, decision: Decision) {
        const stored = messagesIn(chat).find((m) => String(m.message_id) === card.id);
        const data = (stored?.reply_markup?.inline_keyboard ?? [])
          .flat()
          .map((b) => b.callback_data)
          .find((d) => d?.endsWith(`:${decision}`));
        if (!stored || !data) throw new Error(`message ${card.id} in ${chat} shows no ${decision} button`);
        const update = h.tap({ chatId: parse(chat).chatId, messageId: stored.message_id, from: tgUser(u), data });
        tappedBy.set(update.callback_query!.id, u.id);
        remember(update);
      },
      privateAnswers: async (u) => [...answersTo(u.id), ...h.fake.messages(Number(u.id)).map((m) => m.text)],
      async unansweredTaps() {
        const answered = new Set(
          h.fake.calls
            .of('answerCallbackQuery')
            .filter((c) => c.ok)
            .map((c) => String(c.body.callback_query_id)),
        );
        return [...tappedBy.keys()].filter((id) => !answered.has(id)).length;
      },
      async redeliverLast() {
        if (!last) throw new Error('nothing was delivered yet');
        // What the polling loop does with every update getUpdates returns; the same update_id again.
        await h.platform.bot.handleUpdate(structuredClone(last) as Parameters<typeof h.platform.bot.handleUpdate>[0]);
      },
      injectRateLimit(seconds) {
        h.fake.failNext('sendMessage', {
          status: 429,
          body: {
            ok: false,
            error_code: 429,
            description: `Too Many Requests: retry after ${seconds}`,
            parameters: { retry_after: seconds },
          },
        });
      },
      sendAttempts: async (chat): Promise<SendAttempt[]> =>
        h.fake.calls
          .of('sendMessage')
          .filter((c) => Number(c.body.chat_id) === parse(chat).chatId)
          .map((c) => ({ at: c.at, ok: c.ok, status: c.status })),
      settled: () => h.settled(),
      close: () => h.close(),
    };
    return driver;
  };
}

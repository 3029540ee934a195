// The platform-neutral face of "a running Kazma on a chat platform", as the Surface contract drives
// it: a fake platform server, the real adapter, a real Kazma wired to them, and a fake LLM. Each
// adapter supplies one driver; the contract suite (surface-contract.ts) runs unchanged against all.
import type { Decision } from '../../src/core/approvals/port.ts';
import type { FakeLlm } from '../fakes/llm-server.ts';

/** Re-exported for the drivers, which import it from here. */
export type { Decision };

/** A person on the platform. `id` is the platform's user id; the contract never looks inside it. */
export interface ContractUser {
  readonly id: string;
  /** The name the platform shows (the contract expects it on "approved by …"). */
  readonly name: string;
}

/** An opaque handle for a conversation (a DM, a channel, a thread), made by the driver. */
export type ContractChat = string;

/** A message the bot posted, as the user sees it now. */
export interface BotMessage {
  /** Opaque; the driver uses it to find the message again (taps). */
  readonly id: string;
  /** The visible text, formatting removed, exactly as the platform stores it. */
  readonly text: string;
  /** The spans shown in bold, in order. */
  readonly bold: readonly string[];
  /** Labels of the buttons shown now (empty once a card is settled). */
  readonly buttons: readonly string[];
  /** Times the message was edited. */
  readonly edits: number;
}

/** One attempt to post a message (accepted or not), in arrival order at the fake server. */
export interface SendAttempt {
  at: number;
  ok: boolean;
  status: number;
}

export interface SurfaceDriver {
  readonly platform: string;
  /** The platform's message text limit, in the units the platform counts. */
  readonly limit: number;
  /** Two operators (they may approve), a member (may chat, may not approve), a stranger (on no list). */
  readonly operator: ContractUser;
  readonly operator2: ContractUser;
  readonly member: ContractUser;
  readonly stranger: ContractUser;
  readonly llm: FakeLlm;
  /** The directory the file tools write to. */
  readonly workspace: string;
  /** The user's direct conversation with the bot. */
  dm(user: ContractUser): ContractChat;
  /** The platform's client sends `/start` when a person opens the bot (Telegram): no first-DM welcome. */
  readonly opensWithStart: boolean;
  /** The user writes `text` (default: in their DM). Resolves once the platform has queued it. */
  userSays(user: ContractUser, text: string, options?: { chat?: ContractChat }): Promise<void>;
  /** The bot's own message arrives as an event (platforms echo them to bots in some setups). */
  selfSays(text: string, options?: { chat?: ContractChat }): Promise<void>;
  /** The bot's messages in `chat`, oldest first. */
  botMessages(chat: ContractChat): Promise<BotMessage[]>;
  /** `user` taps the button for `decision` on a card the bot posted in `chat`. */
  tap(user: ContractUser, chat: ContractChat, card: BotMessage, decision: Decision): Promise<void>;
  /** Everything only `user` was shown (ephemeral answers, tap answers, direct messages), oldest first. */
  privateAnswers(user: ContractUser): Promise<string[]>;
  /** Taps the platform still waits for the bot to acknowledge. */
  unansweredTaps(): Promise<number>;
  /** Delivers the most recent platform event again, as the platform does after a lost acknowledgement. */
  redeliverLast(): Promise<void>;
  /** The platform answers the bot's next message post with a rate limit asking to wait `seconds`. */
  injectRateLimit(seconds: number): void;
  /** Attempts to post a message in `chat`. */
  sendAttempts(chat: ContractChat): Promise<SendAttempt[]>;
  /** Resolves when every delivered event was handled and no turn runs. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/** Makes a fresh driver: new fake server, new Kazma on an empty database, shared fake LLM. */
export type DriverFactory = (llm: FakeLlm) => Promise<SurfaceDriver>;

// In-memory workspace state of the fake: channel histories (user and bot messages), ephemerals,
// and the targets of issued response URLs. One ts sequence for everything, so order is total.
import type { Block, MessageContent } from './limits.ts';

export interface Identity {
  teamId: string;
  appId: string;
  botUserId: string;
  botId: string;
}

/** A previous version of an edited message. */
export interface MessageVersion {
  text: string;
  blocks?: Block[];
  at: number;
}

export interface StoredMessage {
  channel: string;
  ts: string;
  text: string;
  blocks?: Block[];
  attachments?: unknown;
  metadata?: unknown;
  thread_ts?: string;
  /** The author: a user id, or the bot's user id for messages the app posted. */
  user: string;
  /** Set only on messages the app posted. */
  bot_id?: string;
  /** Set by chat.update / replace_original, as Slack does. */
  edited?: { user: string; ts: string };
  /** Earlier versions, oldest first. */
  edits: MessageVersion[];
}

export interface StoredEphemeral {
  channel: string;
  /** The only user who sees it. */
  user: string;
  ts: string;
  text: string;
  blocks?: Block[];
  thread_ts?: string;
  via: 'chat.postEphemeral' | 'response_url' | 'slash_ack';
}

/** What a response URL acts on: the message clicked (if any) and who clicked or typed. */
export interface ResponseTarget {
  channel: string;
  user: string;
  messageTs?: string;
  ephemeral?: boolean;
}

export class SlackStore {
  private seq = 0;
  private idSeq = 0;
  private readonly history = new Map<string, StoredMessage[]>();
  private readonly ephemeral: StoredEphemeral[] = [];
  readonly responseTargets = new Map<string, ResponseTarget>();

  constructor(readonly id: Identity) {}

  /** Slack ts values: seconds.micros, strictly increasing ('1700000000.000001', …). */
  nextTs(): string {
    const n = ++this.seq;
    return `${1_700_000_000 + Math.floor(n / 1_000_000)}.${String(n % 1_000_000).padStart(6, '0')}`;
  }

  /** Slack gives every block without a block_id (and element without an action_id) a generated one. */
  private withIds(blocks: Block[]): Block[] {
    const id = () => (++this.idSeq).toString(36).padStart(4, '0');
    return blocks.map((b) => {
      const out: Block = { ...b, block_id: typeof b.block_id === 'string' ? b.block_id : id() };
      if (Array.isArray(b.elements) && b.type === 'actions') {
        out.elements = b.elements.map((e: Block) => ({
          ...e,
          action_id: typeof e.action_id === 'string' ? e.action_id : id(),
        }));
      }
      return out;
    });
  }

  post(channel: string, user: string, content: MessageContent, threadTs?: string): StoredMessage {
    const m: StoredMessage = { channel, ts: this.nextTs(), text: content.text ?? '', user, edits: [] };
    if (user === this.id.botUserId) m.bot_id = this.id.botId;
    if (content.blocks) m.blocks = this.withIds(content.blocks);
    if (content.attachments !== undefined) m.attachments = content.attachments;
    if (content.metadata !== undefined) m.metadata = content.metadata;
    if (threadTs) m.thread_ts = threadTs;
    const list = this.history.get(channel) ?? [];
    list.push(m);
    this.history.set(channel, list);
    return m;
  }

  /** chat.update semantics: omitted fields keep their value; `blocks: []` removes the blocks. */
  edit(m: StoredMessage, content: MessageContent): StoredMessage {
    m.edits.push({ text: m.text, ...(m.blocks ? { blocks: m.blocks } : {}), at: Date.now() });
    if (content.text !== undefined) m.text = content.text;
    if (content.blocks !== undefined) {
      if (content.blocks.length) m.blocks = this.withIds(content.blocks);
      else delete m.blocks;
    }
    if (content.attachments !== undefined) m.attachments = content.attachments;
    m.edited = { user: this.id.botUserId, ts: this.nextTs() };
    return m;
  }

  find(channel: string, ts: string): StoredMessage | undefined {
    return this.history.get(channel)?.find((m) => m.ts === ts);
  }

  remove(channel: string, ts: string): boolean {
    const list = this.history.get(channel);
    const i = list?.findIndex((m) => m.ts === ts) ?? -1;
    if (!list || i < 0) return false;
    list.splice(i, 1);
    return true;
  }

  messages(channel: string): StoredMessage[] {
    return [...(this.history.get(channel) ?? [])];
  }

  addEphemeral(e: Omit<StoredEphemeral, 'ts'>): StoredEphemeral {
    const stored = { ...e, ts: this.nextTs() };
    this.ephemeral.push(stored);
    return stored;
  }

  findEphemeral(channel: string, ts: string): StoredEphemeral | undefined {
    return this.ephemeral.find((e) => e.channel === channel && e.ts === ts);
  }

  removeEphemeral(e: StoredEphemeral): void {
    this.ephemeral.splice(this.ephemeral.indexOf(e), 1);
  }

  ephemerals(channel: string, user?: string): StoredEphemeral[] {
    return this.ephemeral.filter((e) => e.channel === channel && (user === undefined || e.user === user));
  }
}

/** The message object as Slack returns it in API results and interaction payloads. */
export function wireMessage(m: StoredMessage, id: Identity): Record<string, unknown> {
  return {
    type: 'message',
    user: m.user,
    text: m.text,
    ts: m.ts,
    team: id.teamId,
    ...(m.bot_id ? { bot_id: m.bot_id, app_id: id.appId } : {}),
    ...(m.blocks ? { blocks: m.blocks } : {}),
    ...(m.attachments !== undefined ? { attachments: m.attachments } : {}),
    ...(m.metadata !== undefined ? { metadata: m.metadata } : {}),
    ...(m.thread_ts ? { thread_ts: m.thread_ts } : {}),
    ...(m.edited ? { edited: m.edited } : {}),
  };
}

// Slack's chat streaming API as the fake implements it (chat.startStream / appendStream / stopStream):
// an app's reply in a thread that grows as markdown is appended, then is stopped and is an ordinary
// message. What Slack documents, and what others found and the fake keeps: a stream is a thread reply
// (`thread_ts` required); outside a DM it is shown to one person, named by `recipient_user_id` and
// `recipient_team_id`; each call's `markdown_text` is at most 12,000 characters; a stream ends on its own
// about 5 minutes after it began, and an append or stop after that answers `message_not_in_streaming_state`,
// as it does for a message that is not a stream or was stopped. A workspace without the API answers
// `unknown_method` (FakeSlackOptions.streaming: false). Slack does not document chat.update on a message
// still streaming; the fake refuses it (`cant_update_message`), the strict reading, so an app must stop
// a stream before it edits the message.
import { isError, type SlackErrorBody } from './limits.ts';
import { wireMessage, type SlackStore, type StoredMessage } from './store.ts';

type Result = Record<string, unknown>;
type Handler = (args: Record<string, unknown>, store: SlackStore) => Result;

/** What Slack allows in one call's `markdown_text`. */
export const STREAM_TEXT_LIMIT = 12_000;

const err = (error: string): SlackErrorBody => ({ ok: false, error });
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Options of the fake's streams. */
export interface StreamOptions {
  /** How long a stream stays open after its start (Slack: about 5 minutes). */
  lifetimeMs: number;
  isChannel(id: string): 'channel' | 'group' | 'im' | undefined;
}

/** The streams the fake keeps open: a message's ts -> when its stream began. */
export class SlackStreams {
  readonly #open = new Map<string, number>();
  readonly #o: StreamOptions;

  constructor(options: StreamOptions) {
    this.#o = options;
  }

  /** True while `m` is a stream not yet stopped nor expired. */
  streaming(m: StoredMessage): boolean {
    const began = this.#open.get(`${m.channel}/${m.ts}`);
    return began !== undefined && Date.now() - began < this.#o.lifetimeMs;
  }

  readonly methods: Record<string, Handler> = {
    'chat.startStream': (args, s) => {
      const channel = str(args.channel);
      const kind = channel ? this.#o.isChannel(channel) : undefined;
      if (!channel || !kind) return err('channel_not_found');
      const threadTs = str(args.thread_ts);
      if (!threadTs) return err('invalid_arguments'); // a stream is always a reply in a thread
      if (!s.find(channel, threadTs)) return err('thread_not_found');
      const user = str(args.recipient_user_id);
      const team = str(args.recipient_team_id);
      if (kind !== 'im' && (!user || !team)) return err('invalid_arguments'); // whom a channel's stream is for
      if (team !== undefined && team !== s.id.teamId) return err('team_not_found');
      const text = markdown(args);
      if (isError(text)) return text;
      const m = s.post(channel, s.id.botUserId, { text }, threadTs);
      this.#open.set(`${channel}/${m.ts}`, Date.now());
      return { ok: true, channel, ts: m.ts };
    },

    'chat.appendStream': (args, s) => {
      const m = this.#streamOf(args, s);
      if (isError(m)) return m;
      const text = markdown(args);
      if (isError(text)) return text;
      if (text === '') return err('invalid_arguments');
      s.edit(m, { text: m.text + text });
      return { ok: true, channel: m.channel, ts: m.ts };
    },

    'chat.stopStream': (args, s) => {
      const m = this.#streamOf(args, s);
      if (isError(m)) return m;
      const text = markdown(args);
      if (isError(text)) return text;
      if (text !== '') s.edit(m, { text: m.text + text });
      this.#open.delete(`${m.channel}/${m.ts}`);
      return { ok: true, channel: m.channel, ts: m.ts, message: wireMessage(m, s.id) };
    },
  };

  #streamOf(args: Record<string, unknown>, s: SlackStore): StoredMessage | SlackErrorBody {
    const channel = str(args.channel);
    if (!channel || !this.#o.isChannel(channel)) return err('channel_not_found');
    const m = s.find(channel, str(args.ts) ?? '');
    if (!m) return err('message_not_found');
    if (!this.streaming(m)) {
      this.#open.delete(`${m.channel}/${m.ts}`);
      return err('message_not_in_streaming_state');
    }
    return m;
  }
}

/** A call's `markdown_text` ('' when absent), within Slack's limit. */
function markdown(args: Record<string, unknown>): string | SlackErrorBody {
  const text = typeof args.markdown_text === 'string' ? args.markdown_text : '';
  return [...text].length > STREAM_TEXT_LIMIT ? err('msg_too_long') : text;
}

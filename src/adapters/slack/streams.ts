// A draft shown with Slack's chat streaming API (chat.startStream / appendStream / stopStream): a reply in a
// thread that Slack grows as markdown is appended, then stops, after which it is an ordinary message. A stream
// only grows, so it carries a draft while the words only grow; when they must change (a progress line the
// words replace, a retry writing anew, an answer outgrowing one message, the final answer's own formatting)
// the stream is stopped and the message is updated as any other (chat.update). A workspace without the API
// (no AI app features, an old token) is not asked again; the draft is then posted and updated.
import type { webApi } from '@slack/bolt';
import type { Logger } from '../../core/log/index.ts';
import type { ChatRef, MessageRef, PartialAnswer } from '../../core/surface/index.ts';
import { messageRefOf, PLATFORM, type SlackTarget } from './ids.ts';

/** Answers that mean "not in this workspace, not with this token": asking again will not help. */
const REFUSED = new Set(['unknown_method', 'not_allowed', 'not_allowed_token_type', 'missing_scope', 'no_permission']);
/**
 * Answers that mean the stream is over: stopped, expired (Slack ends a stream about 5 minutes after it began),
 * or stopped by the person in Slack's own UI. The message stays, and can be updated.
 */
const OVER = new Set(['message_not_in_streaming_state', 'stopped_by_user', 'streaming_state_conflict']);
/** What Slack takes in one call's `markdown_text`. */
const CALL_LIMIT = 12_000;

/** Whom a stream is shown to. */
export interface StreamRecipient {
  user: string;
  team: string;
}

export class SlackStreams {
  readonly #client: webApi.WebClient;
  readonly #logger: Logger | undefined;
  /** False once the workspace refused the API. */
  #available = true;
  /** The markdown each stream this process started shows so far, by `<channel>/<ts>`, until it is stopped. */
  readonly #shown = new Map<string, string>();

  readonly #team: (() => string | undefined) | undefined;

  /** `team`: the workspace's id, for a stream's recipient. */
  constructor(client: webApi.WebClient, team?: () => string | undefined, logger?: Logger) {
    this.#client = client;
    this.#team = team;
    this.#logger = logger;
  }

  /**
   * The draft's message as a stream: one started (no draft yet) or grown to show `partial`; undefined where
   * a stream cannot show it (the caller posts, or stops the stream and updates the message).
   */
  async show(
    chat: ChatRef,
    target: SlackTarget,
    { written, recipient }: PartialAnswer,
    draft?: readonly MessageRef[],
  ): Promise<MessageRef[] | undefined> {
    const [shown, ...more] = draft ?? [];
    if (!shown) {
      const team = this.#team?.();
      const to = recipient?.platform === PLATFORM && team ? { user: recipient.id, team } : undefined;
      // Slack documents the recipient as required outside a DM; apps found it needed in DMs too (a stream
      // without it can vanish once stopped). Without one, the draft is posted instead.
      if (!to) return undefined;
      const ts = await this.start(target, written, to);
      return ts === undefined ? undefined : [{ ...messageRefOf(chat, ts), stream: true }];
    }
    if (more.length > 0 || !shown.stream) return undefined;
    return (await this.append(target.channel, shown.id, written)) ? [shown] : undefined;
  }

  /** A stream in the target's thread showing `markdown`: its ts, or undefined where none can start (post instead). */
  async start(target: SlackTarget, markdown: string, recipient: StreamRecipient): Promise<string | undefined> {
    const { channel, threadTs } = target;
    if (!this.#available || threadTs === undefined || [...markdown].length > CALL_LIMIT) return undefined;
    try {
      const started = await this.#client.chat.startStream({
        channel,
        thread_ts: threadTs,
        markdown_text: markdown,
        recipient_user_id: recipient.user,
        recipient_team_id: recipient.team,
      });
      if (!started.ts) return undefined;
      this.#shown.set(`${channel}/${started.ts}`, markdown);
      return started.ts;
    } catch (error) {
      // Any failure to start costs only the stream: the draft is posted instead.
      this.#refused(error);
      this.#logger?.debug({ err: error, channel }, 'Slack did not start a stream; posting the draft instead');
      return undefined;
    }
  }

  /**
   * Shows `markdown` in the stream `ts` by appending what it adds; false when the stream cannot show it (not
   * one this process streams, words that do not continue what it shows, a stream Slack ended): the caller
   * then stops it and updates the message.
   */
  async append(channel: string, ts: string, markdown: string): Promise<boolean> {
    const key = `${channel}/${ts}`;
    const shown = this.#shown.get(key);
    if (shown === undefined || !markdown.startsWith(shown)) return false;
    const more = markdown.slice(shown.length);
    if (more === '') return true;
    if ([...more].length > CALL_LIMIT) return false;
    try {
      await this.#client.chat.appendStream({ channel, ts, markdown_text: more });
    } catch (error) {
      if (!OVER.has(errorCode(error))) throw error; // the LiveReply logs it; the next edit tries again
      this.#shown.delete(key);
      return false;
    }
    this.#shown.set(key, markdown);
    return true;
  }

  /**
   * Ends the stream of message `ts`, so it can be updated as any message: one this process started, or —
   * after a crash — one recorded as a stream. A stream already over, or any failure, is only logged: the
   * update that follows says whether the message can still be changed.
   */
  async stop(channel: string, ts: string): Promise<void> {
    this.#shown.delete(`${channel}/${ts}`);
    if (!this.#available) return;
    try {
      await this.#client.chat.stopStream({ channel, ts });
    } catch (error) {
      this.#refused(error);
      if (!OVER.has(errorCode(error))) this.#logger?.warn({ err: error, channel }, 'could not stop a Slack stream');
    }
  }

  #refused(error: unknown): void {
    if (REFUSED.has(errorCode(error))) this.#available = false;
  }
}

/** The Slack error code a WebClient call failed with ('' when it was no platform error). */
function errorCode(error: unknown): string {
  if (!(error instanceof Error) || !('data' in error)) return '';
  return String((error.data as { error?: unknown } | undefined)?.error ?? '');
}

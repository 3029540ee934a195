// The Slack Surface: canonical Markdown becomes mrkdwn in section blocks, split to Slack's limits (3000
// per section, 50 blocks and 40,000 characters per message); a reply to a thread stays in the thread;
// cards are Block Kit, edited with chat.update; private text is ephemeral. WebClient retries a 429
// after its Retry-After (see client.ts), so a call here is delivered once or fails with a SlackApiError.
import type { webApi } from '@slack/bolt';
import {
  type Actor,
  type Attachment,
  type AttachmentDownload,
  type Card,
  type CardPost,
  type ChatRef,
  type Message,
  type MessageRef,
  type PartPost,
  type PartialAnswer,
  type SendProgress,
  type Surface,
  deliveryKey,
  sendInParts,
  showInParts,
} from '../../core/surface/index.ts';
import type { Logger } from '../../core/log/index.ts';
import { renderCard, type SlackBlock } from './cards.ts';
import { SlackApiError, slackError } from './errors.ts';
import { openSlackFile } from './files.ts';
import { escapeMrkdwn, markdownToMrkdwn, splitForSlack, type SlackMessagePart } from './format.ts';
import { messageRefOf, PLATFORM, targetOf, type SlackTarget } from './ids.ts';
import { SlackStreams } from './streams.ts';
import { SLACK_FILE_LIMIT, uploadSlackFile } from './upload.ts';
import { deliveryMetadata, findPosted } from './posted.ts';
import type { ResponseUrls } from './responses.ts';
import type { KnownThreads } from './threads.ts';

/** Options for {@link SlackSurface}. */
export interface SlackSurfaceOptions {
  client: webApi.WebClient;
  /** The bot token, for downloading shared files (never put in a URL). */
  token: string;
  /** For error messages: where the API was called. */
  apiUrl: string;
  responses: ResponseUrls;
  threads: KnownThreads;
  /** The workspace's team id (auth.test), whom a stream in a channel is shown to with its recipient. */
  team?: () => string | undefined;
  logger?: Logger;
}

/** What a thread shows while a turn runs. */
const THINKING = 'is thinking…';

/** setStatus answers that mean "not in this workspace, not with this token": asking again will not help. */
const STATUS_REFUSED = new Set(['unknown_method', 'not_allowed', 'not_allowed_token_type', 'missing_scope']);

/** chat.update's answers for a message that is no longer there to edit. */
const CARD_GONE = new Set(['message_not_found', 'channel_not_found', 'is_archived']);

export class SlackSurface implements Surface {
  readonly fileLimit = SLACK_FILE_LIMIT;
  readonly platform = PLATFORM;
  readonly #o: SlackSurfaceOptions;
  /** Threads get "is thinking…" until the workspace refuses assistant.threads.setStatus. */
  #status = true;
  readonly #streams: SlackStreams;

  constructor(options: SlackSurfaceOptions) {
    this.#o = options;
    this.#streams = new SlackStreams(options.client, options.team, options.logger);
  }

  openAttachment(attachment: Attachment, signal: AbortSignal): Promise<AttachmentDownload> {
    return openSlackFile({ token: this.#o.token, apiUrl: this.#o.apiUrl }, attachment, signal);
  }

  async send(chat: ChatRef, message: Message, progress?: SendProgress): Promise<MessageRef> {
    const target = this.#target(chat);
    const { file } = message;
    if (file) {
      const upload = {
        ...(progress?.staged && { staged: progress.staged.id }),
        ...(progress?.stage && { stage: (id: string) => progress.stage!(messageRefOf(chat, id)) }),
      };
      const id = await uploadSlackFile(this.#o.client, this.#o.apiUrl, target, { ...message, file }, upload);
      return messageRefOf(chat, id);
    }
    return sendInParts(
      parts(message.text),
      async (part, at) => messageRefOf(chat, await this.#post(target, part.text, part.blocks, at)),
      progress,
      (draft, part) => this.#editText(draft, part),
    );
  }

  /**
   * The answer so far. In a thread, while it fits one message and only grows, a stream Slack grows as the
   * words come (streams.ts); else split as {@link send} splits it: messages posted, then updated (showInParts).
   */
  async showDraft(chat: ChatRef, partial: PartialAnswer, draft?: readonly MessageRef[]): Promise<MessageRef[]> {
    const target = this.#target(chat);
    const split = parts(partial.text);
    const streamed = split.length === 1 ? await this.#streams.show(chat, target, partial, draft) : undefined;
    if (streamed) return streamed;
    const first = partial.key === undefined ? undefined : { key: deliveryKey(partial.key, 0), maybePosted: false };
    return showInParts(
      split,
      draft,
      async (part, i) =>
        messageRefOf(chat, await this.#post(target, part.text, part.blocks, i === 0 ? first : undefined)),
      (ref, part) => this.#editText(ref, part),
    );
  }

  /**
   * Updates a text message (a stream is stopped first: it is an ordinary message then); one deleted
   * meanwhile is posted again. Returns where it now is.
   */
  async #editText(ref: MessageRef, part: SlackMessagePart): Promise<MessageRef> {
    const { channel } = targetOf(ref.chat);
    if (ref.stream) await this.#streams.stop(channel, ref.id);
    try {
      await this.#call('chat.update', () =>
        this.#o.client.chat.update({ channel, ts: ref.id, text: part.text, blocks: [...part.blocks] }),
      );
      return messageRefOf(ref.chat, ref.id);
    } catch (error) {
      if (!(error instanceof SlackApiError && CARD_GONE.has(error.error))) throw error;
      return messageRefOf(ref.chat, await this.#post(this.#target(ref.chat), part.text, part.blocks));
    }
  }

  async sendCard(chat: ChatRef, card: Card, options?: CardPost): Promise<MessageRef> {
    const rendered = renderCard(card);
    const at: PartPost = {
      ...(options?.key !== undefined && { key: deliveryKey(options.key, 0) }),
      maybePosted: options?.again === true,
    };
    return messageRefOf(chat, await this.#post(this.#target(chat), rendered.text, rendered.blocks, at));
  }

  async editCard(ref: MessageRef, card: Card): Promise<void> {
    const rendered = renderCard(card);
    const { channel } = targetOf(ref.chat);
    try {
      await this.#call('chat.update', () =>
        this.#o.client.chat.update({ channel, ts: ref.id, text: rendered.text, blocks: rendered.blocks }),
      );
    } catch (error) {
      // A deleted card cannot show its outcome; retrying would not change that.
      if (error instanceof SlackApiError && CARD_GONE.has(error.error))
        return void this.#o.logger?.warn({ ref, error: error.error }, 'the card to edit was deleted on Slack');
      throw error;
    }
  }

  /**
   * Slack shows no "typing…" for bots; in a thread, an AI app's status says "is thinking…" instead
   * (`assistant.threads.setStatus`, cleared by Slack when the reply lands). A workspace that refuses the
   * method (no AI app features, a token without the scope) is not asked again; any failure is only logged.
   */
  async typing(chat: ChatRef): Promise<void> {
    const { channel, threadTs } = targetOf(chat);
    if (threadTs === undefined || !this.#status) return;
    try {
      await this.#o.client.assistant.threads.setStatus({ channel_id: channel, thread_ts: threadTs, status: THINKING });
    } catch (error) {
      if (
        error instanceof Error &&
        'data' in error &&
        STATUS_REFUSED.has(String((error.data as { error?: unknown }).error))
      )
        this.#status = false;
      this.#o.logger?.debug({ err: error, chat }, 'Slack did not show "is thinking…"');
    }
  }

  /**
   * Text only `actor` sees: through the response URL of the click or slash command being handled, else
   * chat.postEphemeral in the chat (and thread).
   */
  async replyPrivately(chat: ChatRef, actor: Actor, text: string): Promise<void> {
    const { channel, threadTs } = targetOf(chat);
    const thread = threadTs === undefined ? {} : { thread_ts: threadTs };
    const respond = this.#o.responses.find(channel, actor.id);
    for (const part of parts(text)) {
      if (respond) {
        try {
          await respond({ response_type: 'ephemeral', replace_original: false, text: part.text, ...thread });
          continue;
        } catch {
          // An expired or used-up response URL: the ephemeral post below still reaches them.
        }
      }
      await this.#call('chat.postEphemeral', () =>
        this.#o.client.chat.postEphemeral({ channel, user: actor.id, text: part.text, ...thread }),
      );
    }
  }

  #target(chat: ChatRef): SlackTarget {
    const target = targetOf(chat);
    if (target.threadTs !== undefined) this.#o.threads.add(chat); // Kazma takes part in this thread now
    return target;
  }

  /**
   * Posts a message; with a delivery key, tagged with it in the message's metadata, and — when an earlier
   * attempt may have posted it already — the message so tagged is looked for first (posted.ts).
   */
  async #post(target: SlackTarget, text: string, blocks: readonly SlackBlock[], at?: PartPost): Promise<string> {
    if (at?.key !== undefined && at.maybePosted) {
      const found = await findPosted(this.#o.client, target, at.key, this.#o.logger);
      if (found) return found;
    }
    const result = await this.#call('chat.postMessage', () =>
      this.#o.client.chat.postMessage({
        channel: target.channel,
        text,
        ...(blocks.length > 0 && { blocks: [...blocks] }),
        ...(at?.key !== undefined && { metadata: deliveryMetadata(at.key) }),
        unfurl_links: false,
        unfurl_media: false,
        ...(target.threadTs !== undefined && { thread_ts: target.threadTs }),
      }),
    );
    if (!result.ts) throw new Error(`Slack accepted chat.postMessage in ${target.channel} but returned no ts`);
    return result.ts;
  }

  async #call<T>(method: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw slackError(method, error, this.#o.apiUrl);
    }
  }
}

/** Markdown as Slack messages; text that renders to nothing visible is still sent, as written. */
function parts(markdown: string): SlackMessagePart[] {
  const split = splitForSlack(markdownToMrkdwn(markdown)).filter((p) => p.text.trim() !== '');
  if (split.length > 0) return split;
  return splitForSlack(escapeMrkdwn(markdown.trim() || '…'));
}

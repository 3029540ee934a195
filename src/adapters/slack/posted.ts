// Slack has no idempotency key for chat.postMessage, but a message can carry metadata and the channel's
// history returns it. So a delivery's part is posted tagged with its key, and when an earlier attempt may
// have posted it (a stop between Slack taking it and Kazma recording it), the recent history is searched
// for the tag before posting again: the part found is the part sent, once.
import type { webApi } from '@slack/bolt';
import type { Logger } from '../../core/log/index.ts';
import type { SlackTarget } from './ids.ts';

/** The metadata event type of Kazma's tagged posts. */
const EVENT_TYPE = 'kazma_delivery';
/** How far back the history is searched: an attempt's part is among the chat's latest messages. */
const LOOK_BACK = 100;

/** The metadata a part posted under `key` carries. */
export function deliveryMetadata(key: string): { event_type: string; event_payload: { key: string } } {
  return { event_type: EVENT_TYPE, event_payload: { key } };
}

interface Tagged {
  ts?: string;
  metadata?: { event_type?: string; event_payload?: { key?: unknown } };
}

/**
 * The ts of the message posted under `key` among the latest in the target (its thread, when it has one), or
 * undefined. A history Slack will not give (a missing `*:history` scope, a network failure) is logged and
 * answered undefined: the part is then posted, as it was before this check existed.
 */
export async function findPosted(
  client: webApi.WebClient,
  target: SlackTarget,
  key: string,
  logger?: Logger,
): Promise<string | undefined> {
  try {
    const page =
      target.threadTs === undefined
        ? await client.conversations.history({
            channel: target.channel,
            limit: LOOK_BACK,
            include_all_metadata: true,
          })
        : await client.conversations.replies({
            channel: target.channel,
            ts: target.threadTs,
            limit: LOOK_BACK,
            include_all_metadata: true,
          });
    const messages = (page.messages ?? []) as Tagged[];
    return messages.find((m) => m.metadata?.event_type === EVENT_TYPE && m.metadata.event_payload?.key === key)?.ts;
  } catch (error) {
    logger?.warn(
      { err: error, channel: target.channel },
      'could not read the Slack history to see whether a message went out; posting it (add the channels:history, ' +
        'groups:history and im:history scopes so a stop never shows a message twice)',
    );
    return undefined;
  }
}

// A message longer than a platform's limit goes out as several posts. Each adapter splits it its own way
// (send-time rendering); sending the parts, and going on after the ones an earlier attempt delivered, is
// the same everywhere, so it is decided here.
import { createHash } from 'node:crypto';
import type { MessageRef, SendProgress } from './types.ts';

/** How one part goes out. */
export interface PartPost {
  /** The part's delivery key ({@link deliveryKey}): the same on every attempt at this part. */
  key?: string;
  /**
   * An earlier attempt at this delivery stopped without recording whether this part went out (only the
   * first part an attempt posts can be such): a platform that can look (Slack, by the key in a message's
   * metadata) looks before posting.
   */
  maybePosted: boolean;
}

/**
 * Posts `parts` in order and returns the first one's reference. With `progress`: the parts it says were
 * delivered are skipped, and after each part of a message in several, `partSent` records how far it got
 * (the last part included, so a stop before the row is marked sent leaves it known complete) before the
 * next goes out — so when a later part fails, or the process stops, and the message is sent again, no
 * part the platform took shows twice. A one-part message records nothing (it is the common case, and its
 * row says it all).
 */
export async function sendInParts<P>(
  parts: readonly P[],
  post: (part: P, at: PartPost) => Promise<MessageRef>,
  progress?: SendProgress,
  edit?: (ref: MessageRef, part: P) => Promise<MessageRef>,
): Promise<MessageRef> {
  let first = progress?.first;
  const from = progress?.delivered ?? 0;
  for (let i = from; i < parts.length; i++) {
    // The first part goes into the streamed draft that already shows the answer's beginning.
    const draft = i === 0 && edit ? progress?.draft : undefined;
    const at: PartPost = {
      ...(progress?.key !== undefined && { key: deliveryKey(progress.key, i) }),
      maybePosted: progress?.again === true && i === from,
    };
    const ref = draft ? await edit!(draft, parts[0]!) : await post(parts[i]!, at);
    first ??= ref;
    if (progress && parts.length > 1) await progress.partSent(i + 1, first, parts.length);
  }
  if (!first) throw new RangeError('a message with no parts cannot be sent');
  return first;
}

/**
 * The key of part `index` of delivery `key` ({@link SendProgress.key}): 25 URL-safe characters (Discord's
 * nonce limit), the same on every attempt, different for every part and every delivery.
 */
export function deliveryKey(key: string, index: number): string {
  return createHash('sha256').update(`${key}/${index}`).digest('base64url').slice(0, 25);
}

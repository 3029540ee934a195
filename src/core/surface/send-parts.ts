// A message longer than a platform's limit goes out as several posts. Each adapter splits it its own way
// (send-time rendering); sending the parts, and going on after the ones an earlier attempt delivered, is
// the same everywhere, so it is decided here.
import { createHash } from 'node:crypto';
import type { MessageRef } from './types.ts';
import type { SendProgress } from './send-progress.ts';

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
    // A part goes into the streamed draft's message that already shows its beginning.
    const draft = edit ? progress?.draft?.[i] : undefined;
    const at: PartPost = {
      ...(progress?.key !== undefined && { key: deliveryKey(progress.key, i) }),
      maybePosted: progress?.again === true && i === from,
    };
    const ref = draft ? await edit!(draft, parts[i]!) : await post(parts[i]!, at);
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

/**
 * Shows a partial answer's `parts` in the draft's messages (`draft`, one per part shown so far): the last
 * one shown is edited, and a part past it is posted — the stream moves on to the next message once the
 * words outgrow one. The parts before the last were whole when the stream moved past them, so they are not
 * edited again; the final send edits every part into its message (sendInParts). Returns the messages, in order.
 */
export async function showInParts<P>(
  parts: readonly P[],
  draft: readonly MessageRef[] | undefined,
  post: (part: P, index: number) => Promise<MessageRef>,
  edit: (ref: MessageRef, part: P) => Promise<MessageRef>,
): Promise<MessageRef[]> {
  const refs = [...(draft ?? [])];
  // A retry that wrote less than was shown goes back to its own last part (the messages past it keep
  // what they showed until the final send).
  for (let i = Math.max(0, Math.min(refs.length, parts.length) - 1); i < parts.length; i++) {
    const shown = refs[i];
    refs[i] = shown ? await edit(shown, parts[i]!) : await post(parts[i]!, i);
  }
  return refs;
}

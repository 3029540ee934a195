// A message longer than a platform's limit goes out as several posts. Each adapter splits it its own way
// (send-time rendering); sending the parts, and going on after the ones an earlier attempt delivered, is
// the same everywhere, so it is decided here.
import type { MessageRef, SendProgress } from './types.ts';

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
  post: (part: P) => Promise<MessageRef>,
  progress?: SendProgress,
  edit?: (ref: MessageRef, part: P) => Promise<MessageRef>,
): Promise<MessageRef> {
  let first = progress?.first;
  for (let i = progress?.delivered ?? 0; i < parts.length; i++) {
    // A part goes into the streamed draft's message that already shows its beginning.
    const draft = edit ? progress?.draft?.[i] : undefined;
    const ref = draft ? await edit!(draft, parts[i]!) : await post(parts[i]!);
    first ??= ref;
    if (progress && parts.length > 1) await progress.partSent(i + 1, first, parts.length);
  }
  if (!first) throw new RangeError('a message with no parts cannot be sent');
  return first;
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
  post: (part: P) => Promise<MessageRef>,
  edit: (ref: MessageRef, part: P) => Promise<MessageRef>,
): Promise<MessageRef[]> {
  const refs = [...(draft ?? [])];
  // A retry that wrote less than was shown goes back to its own last part (the messages past it keep
  // what they showed until the final send).
  for (let i = Math.max(0, Math.min(refs.length, parts.length) - 1); i < parts.length; i++) {
    const shown = refs[i];
    refs[i] = shown ? await edit(shown, parts[i]!) : await post(parts[i]!);
  }
  return refs;
}

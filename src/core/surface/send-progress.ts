// How far an earlier attempt at a delivery got, which the outbox hands back to a surface's send.
import type { MessageRef } from './types.ts';

/**
 * How far an earlier attempt at a long message got: a part the platform took is never sent again (the
 * outbox keeps this with the message's row).
 */
export interface SendProgress {
  /**
   * The delivery's stable key (its outbox row's id), the same on every attempt: a platform that knows a
   * repeated post by a key (Discord's enforced nonce) posts part `i` under {@link deliveryKey}(key, i), so a
   * part a stopped attempt already posted comes back as that message instead of showing twice.
   */
  key?: string;
  /** An earlier attempt at this delivery began and did not record its end: a part may be out already. */
  again?: boolean;
  /** Parts already delivered, in order, and the first one's reference. */
  delivered: number;
  first?: MessageRef;
  /**
   * For a delivery made in steps before it shows, with no key the platform knows it by (Slack's upload: the
   * file is named, its bytes go up, then it is shared): records where it will be, before the step that
   * shows it, so a send cut short is taken up again — by {@link staged} — instead of "delivery unknown".
   * Rejects as {@link partSent} does when the send is no longer this attempt's.
   */
  stage?(ref: MessageRef): Promise<void>;
  /** What an earlier attempt staged: the platform is asked about it before anything is sent again. */
  staged?: MessageRef;
  /**
   * Told after each part the platform took, of a message in `of` parts (`of` > 1); resolves once it is
   * recorded, and rejects when the send is no longer this attempt's to make (then no further part goes).
   */
  partSent(delivered: number, first: MessageRef, of: number): Promise<void>;
  /**
   * The messages already showing this reply as the model wrote it (a streamed draft, {@link Surface.showDraft}),
   * one per part: each part is edited into its message instead of posted, so no part shows twice.
   */
  draft?: readonly MessageRef[];
}

// What a LiveReply (live-reply.ts) is given: where drafts are shown, the chat's pace, and how drafts are recorded so
// a start after a crash finds them; and the one line it writes itself.
import type { Logger } from '../log/index.ts';
import type { Actor, ChatRef, MessageRef, PartialAnswer } from '../surface/index.ts';

/** The line under a failed model's words when a fallback model takes over (its answer follows, in a new message). */
export const fallbackTakesOver = (model: string) => `⚠️ The model stopped mid-answer; fallback ${model} answers below.`;

/** Where drafts are shown (SurfaceRegistry.showDraft), and whether a new one is a preview (.previews). */
export interface DraftShower {
  showDraft(chat: ChatRef, partial: PartialAnswer, draft?: readonly MessageRef[]): Promise<MessageRef[]>;
  previews(chat: ChatRef): boolean;
}

/** Options for {@link LiveReply}. */
export interface LiveReplyOptions {
  chat: ChatRef;
  surfaces: DraftShower;
  /** No draft before the turn has run this long: a quick answer arrives as one message, no edits. */
  startAfterMs: number;
  /** At most one draft edit per this long (each platform's key, `streaming.<platform>.edit_interval`). */
  editIntervalMs: number;
  /** Configured secret values, masked in a progress line's arguments (toolProgressLine). */
  secrets?: readonly string[];
  /**
   * Records a message a draft was first shown in (not a preview), before the draft's next edit: a start
   * after a crash finds it and says it was interrupted (LiveReplies.interrupted). Once per message.
   */
  record?: (ref: MessageRef) => Promise<void>;
  /**
   * Records, before a draft's first message is posted, the key it is posted under (returned: the delivery
   * key, PartialAnswer.key): a crash between the post and {@link record} leaves the key, by which a platform
   * that can finds the message. Absent or failing: the draft is posted and recorded after.
   */
  reserve?: (key: string) => Promise<string>;
  /** Ends the records of drafts the drive ended without the answer taking them over ({@link done}). */
  release?: (drafts: Array<{ ref?: MessageRef; key?: string }>) => Promise<void>;
  /** Whom the answer is for (PartialAnswer.recipient). */
  recipient?: Actor;
  /** Runs the next show in `ms` (default after.ts: a timer, or the end of this turn when due); tests count them. */
  after?: (ms: number, run: () => void) => { cancel(): void };
  logger?: Logger;
}

// A new turn's input made into the person's message for the model. Text is sent as it is; a message with
// files has them read now (core/media: downloaded within limits, images as data: URLs, documents as fenced
// text), in the turn — not when the event was recorded — so the inbox keeps references only; a turn
// taken up again after a crash, before its message reached the checkpoint, reads the bytes core/media kept
// when it first downloaded them.
import { HumanMessage } from '@langchain/core/messages';
import type { MediaReader } from '../../media/index.ts';
import type { SentHandOff } from '../../outbox/index.ts';
import type { RunRef } from '../../runs/index.ts';
import type { Actor, Attachment } from '../../surface/index.ts';
import { turnMessageId } from './transcript.ts';
import type { TurnOutput } from './turn-output.ts';

/** A new input on a run: who, what they wrote, the files they sent, and the turn's id. */
export interface TurnInput {
  actor: Actor;
  text: string;
  attachments?: Attachment[];
  turnId?: string;
  /** The inbox took it up again after a stop: the drafts an earlier run left say they were interrupted. */
  retaken?: boolean;
}

/**
 * The person's message for turn `turnId`, or undefined when nothing is left for the model (a file alone
 * that could not be read): the person is then told why, and the turn ends without a model call. Notes on
 * files not read are replies of the turn, keyed by it, so a turn run again sends them once.
 */
export async function humanMessage(
  deps: { media?: Pick<MediaReader, 'read'>; out: TurnOutput; signal?: AbortSignal },
  run: RunRef,
  input: TurnInput,
  turnId: string,
  sent?: SentHandOff,
): Promise<HumanMessage | undefined> {
  const id = turnMessageId(turnId);
  if (!input.attachments?.length || !deps.media || !run.origin) return new HumanMessage({ content: input.text, id });
  const read = await deps.media.read(run.origin, input.text, input.attachments, deps.signal);
  const notes = read.notes.map((text, i) => ({ key: `media:${turnId}:${i}`, text }));
  if (notes.length > 0) await deps.out.deliver(run, notes, sent);
  return read.empty ? undefined : new HumanMessage({ content: read.content, id });
}

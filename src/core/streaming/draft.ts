// One draft of a live reply (live-reply.ts): the words of one model call as they are shown, and what is
// shown next.
import type { MessageRef } from '../surface/index.ts';
import { closePartial } from '../surface/index.ts';

export interface Draft {
  /** The model call writing it (LangChain's run id); a retry of the call starts over in the same draft. */
  call: string;
  text: string;
  /** The text last shown, and where: a message per part (Surface.showDraft). */
  shown: string;
  refs?: MessageRef[];
  /** The final answer took it (draftFor). */
  used: boolean;
  /** Its call failed: its words are not the answer's. */
  failed: boolean;
  /** Its failed call's words stay shown, closed, with a line saying a fallback took over (fallback). */
  kept?: boolean;
  /** What a running tool is doing, shown while the draft has no words (progress). */
  status?: string;
  /** Its call ended: its words are a whole message of the model's. */
  ended: boolean;
  /** The key its first message was reserved under (LiveReplyOptions.reserve) and its delivery key. */
  reserved?: { key: string; delivery: string };
}

/** The draft to show next and its text (closed for the platform), when it differs from what it shows. */
export function nextToShow(
  drafts: readonly Draft[],
  current: Draft | undefined,
): { draft: Draft; text: string; written: string } | undefined {
  // A kept draft's closing line goes first: the current one is shown in the next edit.
  const draft = drafts.find((d) => d.kept && d.shown !== d.text) ?? current;
  if (!draft) return undefined;
  const written = draft.text === '' ? (draft.status ?? '') : draft.text;
  const text = draft.text === '' ? written : closePartial(written);
  return text.trim() === '' || text === draft.shown ? undefined : { draft, text, written };
}

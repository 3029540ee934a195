// A conversation's checkpoint as a change to the one before. LangGraph stores a channel's whole value
// under each new version, so every turn of a long chat wrote its whole context window again (at the
// default 32,000 tokens, ~260 kB a turn: copied four times on its way out, sent, and written to TOAST).
// A turn adds a few messages and the window drops a few old ones; a delta blob says just that — which of
// the base version's messages are gone, and the messages added — and names its base, another blob of the
// same thread and channel (blobs are never changed or deleted while their thread lives). A chain of
// deltas is cut every MAX_DELTA_DEPTH writes by a whole value, so a reader that holds none of it reads at
// most that many small blobs and one whole value.
import type { BaseMessage } from '@langchain/core/messages';

/** The blob type of a delta (the stock serializer's types are "json", "bytes", "empty", …). */
export const DELTA_TYPE = 'kazma_messages_delta';

/** How many deltas may stand between a value and the last whole one before a whole value is written again. */
export const MAX_DELTA_DEPTH = 20;

/** What a delta blob says besides the added messages. */
export interface DeltaHeader {
  v: 1;
  /** Where the base blob is: the thread, namespace, channel and version of the value this changes. */
  thread: string;
  ns: string;
  channel: string;
  base: string;
  /** Deltas from the last whole value to this one, this one included (1 for a delta on a whole value). */
  depth: number;
  /** Indexes into the base's list of the messages that are gone, ascending. */
  removed: number[];
  /** The JSON size of the whole value this delta stands for (for the reader's memory budget). */
  bytes: number;
}

/**
 * How `next` was made from `prev`: some of `prev`'s messages removed, the rest kept in order, then new
 * messages appended. Messages are compared by identity (a message in a thread's state is never changed in
 * place: channel-values.ts). Undefined when `next` is not of that shape (e.g. an old message moved).
 */
export function diffMessages(
  prev: readonly BaseMessage[],
  next: readonly BaseMessage[],
): { removed: number[]; appended: BaseMessage[] } | undefined {
  const indexOf = new Map<BaseMessage, number>();
  for (const [i, message] of prev.entries()) indexOf.set(message, i);
  const removed: number[] = [];
  let at = 0;
  let j = 0;
  for (; j < next.length; j++) {
    const i = indexOf.get(next[j]!);
    if (i === undefined) break;
    if (i < at) return undefined;
    for (; at < i; at++) removed.push(at);
    at = i + 1;
  }
  for (; at < prev.length; at++) removed.push(at);
  const appended = next.slice(j);
  if (appended.some((message) => indexOf.has(message))) return undefined;
  return { removed, appended };
}

/** The base's messages less the removed ones, then the appended ones: the value a delta stands for. */
export function applyDelta(
  base: readonly BaseMessage[],
  removed: readonly number[],
  appended: readonly BaseMessage[],
): BaseMessage[] {
  const gone = new Set(removed);
  return [...base.filter((_, i) => !gone.has(i)), ...appended];
}

const NEWLINE = 0x0a;

/** A delta blob: the header's JSON (which holds no raw newline), a newline, the appended list's JSON. */
export function encodeDelta(header: DeltaHeader, appendedJson: Uint8Array): Uint8Array {
  const head = Buffer.from(JSON.stringify(header), 'utf8');
  const out = new Uint8Array(head.length + 1 + appendedJson.length);
  out.set(head, 0);
  out[head.length] = NEWLINE;
  out.set(appendedJson, head.length + 1);
  return out;
}

/** The header and the appended list's JSON of a delta blob. */
export function decodeDelta(blob: Uint8Array): { header: DeltaHeader; appendedJson: Uint8Array } {
  const cut = blob.indexOf(NEWLINE);
  if (cut < 0) throw new Error('a checkpoint delta blob has no header');
  const header = JSON.parse(Buffer.from(blob.buffer, blob.byteOffset, cut).toString('utf8')) as DeltaHeader;
  if (header.v !== 1)
    throw new Error(`a checkpoint delta blob of version ${String(header.v)} is not one this Kazma reads`);
  return { header, appendedJson: blob.subarray(cut + 1) };
}

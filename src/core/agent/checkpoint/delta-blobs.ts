// Writing a channel's value as a whole blob or as a delta on the value this process holds, and finding the
// base a delta blob names (message-deltas.ts says why). Used by the saver for its writes and, through the
// serializer, for every read (its own and the stock saver's `list`).
import type { BaseMessage } from '@langchain/core/messages';
import { isMessageList, type ChannelValues, type KnownValue } from './channel-values.ts';
import {
  applyDelta,
  decodeDelta,
  DELTA_TYPE,
  diffMessages,
  encodeDelta,
  MAX_DELTA_DEPTH,
  type DeltaHeader,
} from './message-deltas.ts';
import type { MessageMemoSerializer } from './message-serde.ts';

/** Where a blob is: its thread, namespace, channel and version. */
export interface BlobKey {
  thread: string;
  ns: string;
  channel: string;
  version: string;
}

/** A dumped channel value: its blob row's type and bytes, and what to remember once it is written. */
export interface DumpedBlob {
  type: string;
  blob: Uint8Array | undefined;
  remember?: { value: readonly BaseMessage[]; bytes: number; depth: number };
}

/**
 * The blob for `value` at `key`. A message list that the value held (`known`, the channel's value this
 * process wrote or read last) became by dropping messages and appending new ones is written as a delta
 * on it, unless that would make the chain longer than MAX_DELTA_DEPTH or keeps nothing of it; anything
 * else is written whole, as the stock saver writes it.
 */
export async function dumpChannel(
  serde: MessageMemoSerializer,
  key: Omit<BlobKey, 'version'>,
  value: unknown,
  known: KnownValue | undefined,
): Promise<DumpedBlob> {
  if (isMessageList(value) && known && known.depth < MAX_DELTA_DEPTH) {
    const diff = diffMessages(known.value, value);
    const kept = known.value.length - (diff?.removed.length ?? known.value.length);
    if (diff && kept > 0) {
      const [, appendedJson] = await serde.dumpsTyped(diff.appended);
      const bytes = Math.round((known.bytes * kept) / known.value.length) + appendedJson.length;
      const header: DeltaHeader = {
        v: 1,
        thread: key.thread,
        ns: key.ns,
        channel: key.channel,
        base: known.version,
        depth: known.depth + 1,
        removed: diff.removed,
        bytes,
      };
      return {
        type: DELTA_TYPE,
        blob: encodeDelta(header, appendedJson),
        remember: { value, bytes, depth: header.depth },
      };
    }
  }
  const [type, blob] = await serde.dumpsTyped(value);
  return { type, blob, ...(isMessageList(value) && { remember: { value, bytes: blob.length, depth: 0 } }) };
}

/** A blob row as the bases' fetch returns it. */
export interface FetchedBlob {
  version: string;
  type: string;
  blob: Buffer | null;
}

/** Reads blob rows of one thread's channel, by version (those that exist). */
export type BlobFetch = (where: Omit<BlobKey, 'version'>, versions: readonly string[]) => Promise<FetchedBlob[]>;

/**
 * Reads a delta blob into the messages it stands for. Its base comes from what this process holds when it
 * holds that version, else from the database — the base and, in the same statement, the versions just
 * before it (a chain's bases are usually the versions before), then any base still missing on its own.
 *
 * Inputs: a delta blob. Output: a new list (a base this process holds is never changed).
 * Invariants: a chain is followed for at most MAX_DELTA_DEPTH + 1 blobs; a missing base is an error, never
 * an empty conversation.
 */
export class DeltaBases {
  readonly #values: ChannelValues;
  readonly #serde: MessageMemoSerializer;
  readonly #fetch: BlobFetch;

  constructor(options: { values: ChannelValues; serde: MessageMemoSerializer; fetch: BlobFetch }) {
    this.#values = options.values;
    this.#serde = options.serde;
    this.#fetch = options.fetch;
  }

  async load(blob: Uint8Array): Promise<BaseMessage[]> {
    const delta = decodeDelta(blob);
    const where = { thread: delta.header.thread, ns: delta.header.ns, channel: delta.header.channel };
    const rows = this.#held(where, delta.header.base)
      ? new Map<string, FetchedBlob>()
      : new Map((await this.#fetch(where, versionsBefore(delta.header.base))).map((row) => [row.version, row]));
    return this.#apply(where, delta, rows, 0);
  }

  #held(where: Omit<BlobKey, 'version'>, version: string): readonly BaseMessage[] | undefined {
    const known = this.#values.known(where.thread, where.ns).get(where.channel);
    return known?.version === version ? known.value : undefined;
  }

  /** The delta's base (held, fetched, or itself a delta) less what it removed, with what it appended. */
  async #apply(
    where: Omit<BlobKey, 'version'>,
    delta: ReturnType<typeof decodeDelta>,
    rows: Map<string, FetchedBlob>,
    hops: number,
  ): Promise<BaseMessage[]> {
    if (hops > MAX_DELTA_DEPTH)
      throw new Error(
        `the checkpoint delta chain of ${where.thread}/${where.channel} is longer than ${MAX_DELTA_DEPTH}`,
      );
    const [base, appended] = await Promise.all([
      this.#valueAt(where, delta.header.base, rows, hops),
      this.#serde.loadsTyped('json', delta.appendedJson) as Promise<BaseMessage[]>,
    ]);
    return applyDelta(base, delta.header.removed, appended);
  }

  async #valueAt(
    where: Omit<BlobKey, 'version'>,
    version: string,
    rows: Map<string, FetchedBlob>,
    hops: number,
  ): Promise<readonly BaseMessage[]> {
    const held = this.#held(where, version);
    if (held) return held;
    const row = rows.get(version) ?? (await this.#fetch(where, [version]))[0];
    if (!row?.blob)
      throw new Error(
        `the checkpoint blob ${where.thread}/${where.channel}@${version}, the base of a delta, is missing`,
      );
    if (row.type !== DELTA_TYPE) return (await this.#serde.loadsTyped(row.type, row.blob)) as BaseMessage[];
    return this.#apply(where, decodeDelta(row.blob), rows, hops + 1);
  }
}

/** `version` and the MAX_DELTA_DEPTH versions before it, when versions are counters (LangGraph's are). */
function versionsBefore(version: string): string[] {
  const n = Number(version);
  if (!Number.isSafeInteger(n)) return [version];
  return Array.from({ length: Math.min(n, MAX_DELTA_DEPTH + 1) }, (_, i) => String(n - i));
}

// What the checkpointer remembers of the conversations it wrote and read, so that a turn does not pay for
// the whole context window again. Every turn's checkpoint holds the window (the `messages` channel: at the
// default 32,000 tokens, ~600 messages, ~250 kB); reviving it from JSON cost ~20 ms and serialising it
// ~10 ms per turn, the largest part of a long thread's turn, growing with the thread.
//
// Two memories, both resting on one rule LangGraph itself keeps: a message in a thread's state is never
// changed in place (the messages reducer builds a new array, and replaces a message by id with a new one;
// the only write into a message is the id it gives one that has none).
//  - Channel values by version. A blob is immutable once written: its key (thread, namespace, channel,
//    version) names one value for good. LangGraph's versions count up along a thread's checkpoints, and one
//    process at a time drives a thread (its lease), continuing from the latest checkpoint, so no two writers
//    give one key two values. So a read that meets a version this process wrote or read before can reuse
//    that value instead of fetching and reviving the blob — on any process, whatever wrote since.
//  - Each message's JSON (message-serde.ts), so the next checkpoint serialises only the new messages.
import { BaseMessage } from '@langchain/core/messages';
import type { CheckpointReadRow } from './checkpoint-read.ts';
import { decodeDelta, DELTA_TYPE } from './message-deltas.ts';

/** The default memory budget, in bytes of the values' JSON (their objects take ~2–3× that on the heap). */
export const DEFAULT_CHANNEL_VALUES_BUDGET = 8 * 1024 * 1024;

/** A value this process holds, with the version it was written or read at. */
export interface KnownValue {
  version: string;
  value: readonly BaseMessage[];
  /** Deltas between the blob of this version and the last whole value (message-deltas.ts); 0: a whole value. */
  depth: number;
  /** The size of the value's JSON. */
  bytes: number;
}

const threadKeyOf = (threadId: string, namespace: string) => `${threadId}\u0000${namespace}`;

/** Only lists of messages are kept: they are the large, growing values, and messages are never changed in place. */
export function isMessageList(value: unknown): value is readonly BaseMessage[] {
  return Array.isArray(value) && value.length > 0 && value.every((item) => BaseMessage.isInstance(item));
}

/**
 * The latest value of each (thread, namespace, channel) this process wrote or read, by version.
 *
 * Inputs: `remember` after a blob is written or read; `known` before a read.
 * Output: the values a read may reuse; the saver hands each reader its own copy of a list (a reader may
 * change its list, never the messages in it).
 * Invariants:
 *  - One entry per (thread, namespace, channel): the latest version remembered replaces the one before.
 *  - The JSON size of all entries stays within the budget; the least recently used threads go first.
 *  - A thread's entries go when the thread is deleted.
 */
export class ChannelValues {
  /** Per thread and namespace, least recently used first: each channel's entry. */
  readonly #threads = new Map<string, Map<string, KnownValue>>();
  readonly #budget: number;
  #bytes = 0;

  constructor(options: { budgetBytes?: number } = {}) {
    this.#budget = options.budgetBytes ?? DEFAULT_CHANNEL_VALUES_BUDGET;
  }

  /** Keeps the message lists a read revived, with their versions, for the next read and write. */
  rememberRead(threadId: string, namespace: string, values: Record<string, unknown>, rows: CheckpointReadRow[]): void {
    for (const row of rows) {
      if (row.part !== 1 || row.known || !row.blob || row.version === null) continue;
      const value = values[row.channel!];
      if (!isMessageList(value)) continue;
      const { depth, bytes } =
        row.type === DELTA_TYPE ? decodeDelta(row.blob).header : { depth: 0, bytes: row.blob.length };
      this.remember(threadId, namespace, row.channel!, { version: row.version, value, bytes, depth });
    }
  }

  /**
   * Keeps `value` as `channel`'s value at `version`; `bytes` is the size of its JSON, `depth` its blob's (default 0).
   */
  remember(
    threadId: string,
    namespace: string,
    channel: string,
    entry: { version: string; value: readonly BaseMessage[]; bytes: number; depth?: number },
  ): void {
    const key = threadKeyOf(threadId, namespace);
    const channels = this.#touch(key) ?? new Map<string, KnownValue>();
    this.#bytes -= channels.get(channel)?.bytes ?? 0;
    channels.delete(channel);
    if (entry.bytes <= this.#budget) {
      channels.set(channel, {
        version: entry.version,
        value: [...entry.value],
        bytes: entry.bytes,
        depth: entry.depth ?? 0,
      });
      this.#bytes += entry.bytes;
    }
    if (channels.size > 0) this.#threads.set(key, channels);
    for (const [oldest] of this.#threads) {
      if (this.#bytes <= this.#budget) break;
      this.#forget(oldest);
    }
  }

  /** The values kept for a thread's channels, by channel, to compare with the versions a read finds. */
  known(threadId: string, namespace: string): ReadonlyMap<string, KnownValue> {
    return new Map(this.#touch(threadKeyOf(threadId, namespace)) ?? []);
  }

  /** Forgets every value of a thread, in every namespace. */
  forgetThread(threadId: string): void {
    const prefix = `${threadId}\u0000`;
    for (const key of [...this.#threads.keys()]) if (key.startsWith(prefix)) this.#forget(key);
  }

  /** A thread's entries, moved to the most recently used end. */
  #touch(key: string): Map<string, KnownValue> | undefined {
    const channels = this.#threads.get(key);
    if (!channels) return undefined;
    this.#threads.delete(key);
    this.#threads.set(key, channels);
    return channels;
  }

  #forget(key: string): void {
    for (const entry of this.#threads.get(key)?.values() ?? []) this.#bytes -= entry.bytes;
    this.#threads.delete(key);
  }
}

// LangGraph's JSON serializer, with each message's JSON remembered. A checkpoint of a turn writes the whole
// context window now and then (message-deltas.ts), but only the turn's own messages are new: the rest were
// serialised, byte for byte the same, at the turn before. See channel-values.ts for the rule that makes
// remembering safe (a message in a thread's state is never changed in place). A delta blob it hands to
// whoever knows where its base is (the saver's DeltaBases).
import type { BaseMessage } from '@langchain/core/messages';
import { JsonPlusSerializer } from '@langchain/langgraph-checkpoint';
import { isMessageList } from './channel-values.ts';
import { DELTA_TYPE } from './message-deltas.ts';

/** Reads a delta blob into the messages it stands for (delta-blobs.ts). */
export type DeltaLoader = (blob: Uint8Array) => Promise<BaseMessage[]>;

const OPEN = 0x5b; // [
const COMMA = 0x2c;
const CLOSE = 0x5d; // ]

/**
 * A {@link JsonPlusSerializer} whose output is byte for byte the stock one's, so the stock saver reads it.
 *
 * Inputs: any value; a list made only of messages takes the remembered path.
 * Output: ["json", bytes] as the stock serializer gives, or its own answer for anything else.
 * Invariants:
 *  - A message's JSON is remembered with the id it had; a message given an id since (LangGraph's reducer
 *    gives one to a message that has none) is serialised again.
 *  - An array's JSON is its elements' JSON joined by commas in brackets, which is what JSON.stringify
 *    writes (the replacer ignores its key, and a message's toJSON takes none).
 */
export class MessageMemoSerializer extends JsonPlusSerializer {
  readonly #json = new WeakMap<BaseMessage, { id: string | undefined; json: Uint8Array }>();
  #loadDelta: DeltaLoader | undefined;

  /** Who reads delta blobs (the saver, which holds the database and what it remembers). */
  loadDeltasWith(loader: DeltaLoader): void {
    this.#loadDelta = loader;
  }

  override async loadsTyped(type: string, data: Uint8Array | string): Promise<unknown> {
    if (type !== DELTA_TYPE) return super.loadsTyped(type, data);
    if (!this.#loadDelta) throw new Error('a checkpoint delta blob was read by a serializer that cannot find its base');
    return this.#loadDelta(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
  }

  override async dumpsTyped(obj: unknown): Promise<[string, Uint8Array]> {
    if (!isMessageList(obj)) return super.dumpsTyped(obj);
    const parts = obj.map((message) => this.#jsonOf(message));
    const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0) + parts.length + 1);
    let at = 0;
    parts.forEach((part, index) => {
      out[at] = index === 0 ? OPEN : COMMA;
      out.set(part, at + 1);
      at += part.length + 1;
    });
    out[at] = CLOSE;
    return ['json', out];
  }

  #jsonOf(message: BaseMessage): Uint8Array {
    const kept = this.#json.get(message);
    if (kept && kept.id === message.id) return kept.json;
    const json = this._dumps(message);
    this.#json.set(message, { id: message.id, json });
    return json;
  }
}

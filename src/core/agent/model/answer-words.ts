// Where a model answer's words go while the model writes them (the drive's live reply, core/streaming),
// for the model calls made inside `withAnswerWords`. Carried by the async context rather than through
// LangChain: an OpenAI-compatible answer is streamed by Kazma's own fetch (streamed-answer.ts), below
// every LangChain and SDK layer, and told from there.
import { AsyncLocalStorage } from 'node:async_hooks';

/** Told a model call's words: `call` names one HTTP request (a retry is another call). */
export interface AnswerWords {
  /**
   * How often, at most, words are worth telling: they are shown no more often (a platform's edit interval).
   * A streamed answer is read in batches this far apart (read-in-batches.ts); none, as each piece comes.
   */
  readonly readEveryMs?: number;
  begin(call: string): void;
  write(call: string, words: string): void;
  /**
   * `call`'s words can be read now, sooner than its reader's next read: what its stream holds and what waits
   * in the kernel, told within this turn of the event loop (read-in-batches.ts). A draft falling due asks, so
   * it shows the latest words and shares its wake-up with that read instead of each having its own.
   */
  reader?(call: string, readNow: () => void): void;
  failed(call: string): void;
  ended(call: string): void;
  /**
   * Every try of the model before failed, and the fallback `model` takes over (model-chain.ts): words already
   * shown stay where they are, and its answer starts anew.
   */
  fallback?(model: string): void;
}

const current = new AsyncLocalStorage<AnswerWords>();

/** Runs `run` with its model calls' words told to `words` (none: run as it is). */
export function withAnswerWords<T>(words: AnswerWords | undefined, run: () => Promise<T>): Promise<T> {
  return words ? current.run(words, run) : run();
}

/** Where the words of a model call made now go, if anywhere. */
export function answerWords(): AnswerWords | undefined {
  return current.getStore();
}

// How a streamed answer's bytes are read (answer-dispatch.ts): in batches, each read waking the process once
// for all the events that came since the last one.

/** The flow of the answer's bytes from its connection: paused, they wait in the kernel (undici's controller). */
export interface ByteFlow {
  pause(): void;
  /** Hands over what the connection held; more comes as the socket reads it. */
  resume(): void;
}

export interface BatchedReadsOptions {
  /** The longest a piece waits to be read once the answer has begun. */
  everyMs: number;
  flow: ByteFlow;
  take: (bytes: Buffer) => void;
  /** Whether the answer has begun (words, or a tool call): until then each piece is read as it comes. */
  begun: () => boolean;
  fail: (failure: unknown) => void;
}

/**
 * Decides when the pieces of an answer that come from `flow` are read, handing each to `take`. Until `begun`
 * (its first words, or a tool call), each piece is read as it comes: nothing holds the first words back.
 * After, a piece is read at once after a quiet spell, else with whatever else came, an interval after the
 * last read: `everyMs`, or twice as long as the answer has been coming if that is shorter — an answer that
 * comes in a burst (a fast model, a short answer) is read as fast as it comes, not held `everyMs` at its end.
 * A piece that comes before its read is due pauses the flow: what follows waits in the kernel instead of
 * waking the process (the connection's socket buffers nothing ahead: model-fetch.ts). A read takes that
 * piece, resumes the flow, and takes what waited in the kernel, which comes in the same turn of the event
 * loop: that is part of the read too (taken until setImmediate), not held an interval more. `readNow` reads
 * sooner than the next read would come (a draft falling due asks for its words). A failure of `take` ends
 * the reads and goes to `fail`, whoever brought the read (the connection, a timer, a draft).
 */
export class BatchedReads {
  readonly #o: BatchedReadsOptions;
  #pending: Buffer[] = [];
  #lastRead = Number.NEGATIVE_INFINITY;
  #begunAt: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  #paused = false;
  /** A read is under way until the end of this turn of the event loop: what comes meanwhile is in it. */
  #reading = false;
  #closed = false;

  constructor(options: BatchedReadsOptions) {
    this.#o = options;
  }

  /** A piece of the answer came. */
  data(bytes: Buffer): void {
    if (this.#closed) return;
    this.#pending.push(bytes);
    if (this.#reading) return this.readNow();
    if (this.#timer) return;
    const now = performance.now();
    const interval = this.#begunAt === undefined ? 0 : Math.min(this.#o.everyMs, 2 * (now - this.#begunAt));
    const wait = this.#lastRead + interval - now;
    if (wait <= 0) return this.readNow();
    this.#paused = true;
    this.#o.flow.pause();
    this.#timer = setTimeout(() => this.readNow(), wait);
  }

  /** Reads what came, now. */
  readNow(): void {
    if (this.#closed) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    try {
      for (let bytes = this.#pending.shift(); bytes !== undefined; bytes = this.#pending.shift()) this.#o.take(bytes);
    } catch (failure) {
      this.close();
      return this.#o.fail(failure);
    }
    if (this.#o.begun()) {
      this.#lastRead = performance.now();
      this.#begunAt ??= this.#lastRead;
    }
    if (!this.#reading) {
      this.#reading = true;
      setImmediate(() => {
        this.#reading = false;
      });
    }
    if (this.#paused) {
      this.#paused = false;
      // Once the code that asked is done: undici's parser cannot be resumed while any connection's parser
      // runs, and a read asked for from inside another answer's handler would be.
      queueMicrotask(() => this.#o.flow.resume());
    }
  }

  /** The answer ended: what came of it is read, and no more reads come. */
  end(): void {
    this.readNow();
    this.close();
  }

  /** No more reads: the answer ended or failed. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
  }
}

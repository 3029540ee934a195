// What pglite-socket's clients run through while this process keeps using the same PGlite itself.
//
// pglite-socket runs each protocol message of a client under PGlite's query mutex only. This process's own
// statements (drizzle, the checkpointer) take PGlite's transaction mutex first, so without this gate a
// client's `BEGIN … COMMIT`, or its Parse/Bind/Execute/Sync exchange, could have one of ours run in the
// middle of it: our statement inside the client's transaction (undone by its ROLLBACK), or our unnamed
// statement replacing the client's before its Bind. The gate makes a client's exchange one critical
// section of the transaction mutex, and tells the socket server's queue "in a transaction" meanwhile, so
// the queue takes only that client's next message (pglite-socket keeps a transaction to its own client).
//
// Invariant: from a client's first message until a Sync or simple Query that leaves PGlite outside a
// transaction, neither this process nor another client runs a statement.
import type { PGlite } from '@electric-sql/pglite';

/** The part of PGlite the socket server calls (pglite-socket 0.2.17's PGLiteSocketServer and its queue). */
interface Engine {
  readonly waitReady: Promise<void>;
  isInTransaction(): boolean;
  runExclusive<T>(fn: () => Promise<T>): Promise<T>;
  execProtocolRawStream(message: Uint8Array, options: { onRawData: (data: Uint8Array) => void }): Promise<void>;
  _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T>;
}

/** Frontend message types after which a client's exchange may be over (PostgreSQL protocol 3). */
const ENDS_EXCHANGE = new Set(['S'.charCodeAt(0), 'Q'.charCodeAt(0), 'X'.charCodeAt(0)]);

/** The socket server's `db`: PGlite, with each client's exchange held as one unit against this process. */
export class ClientGate {
  readonly #engine: Engine;
  /** Set while a client's exchange holds the transaction mutex; calling it lets the mutex go. */
  #release: (() => void) | undefined;
  #acquiring: Promise<void> | undefined;

  constructor(pglite: PGlite) {
    this.#engine = pglite as unknown as Engine;
  }

  get waitReady(): Promise<void> {
    return this.#engine.waitReady;
  }

  isInTransaction(): boolean {
    return this.#release !== undefined || this.#engine.isInTransaction();
  }

  async runExclusive<T>(fn: () => Promise<T>): Promise<T> {
    await this.#hold();
    return this.#engine.runExclusive(fn);
  }

  async execProtocolRawStream(message: Uint8Array, options: { onRawData: (data: Uint8Array) => void }) {
    try {
      await this.#engine.execProtocolRawStream(message, options);
    } finally {
      // A startup message has no type byte (its first byte is 0): it ends its own exchange too.
      const type = message[0] ?? 0;
      if ((type === 0 || ENDS_EXCHANGE.has(type)) && !this.#engine.isInTransaction()) this.#letGo();
    }
  }

  /**
   * The server calls this only to roll back a client that went away inside its exchange: the Sync ends
   * whatever extended-protocol exchange it left open, then the ROLLBACK ends its transaction, if any.
   */
  async exec(text: string): Promise<void> {
    await this.#hold();
    try {
      await this.#engine.runExclusive(() =>
        this.#engine.execProtocolRawStream(new Uint8Array([...syncMessage(), ...queryMessage(text)]), {
          onRawData: () => {},
        }),
      );
    } finally {
      this.#letGo();
    }
  }

  async #hold(): Promise<void> {
    if (this.#release) return;
    this.#acquiring ??= new Promise<void>((held) => {
      void this.#engine._runExclusiveTransaction(
        () =>
          new Promise<void>((release) => {
            this.#release = release;
            held();
          }),
      );
    });
    await this.#acquiring;
  }

  #letGo(): void {
    const release = this.#release;
    this.#release = undefined;
    this.#acquiring = undefined;
    release?.();
  }
}

function syncMessage(): Uint8Array {
  return new Uint8Array(['S'.charCodeAt(0), 0, 0, 0, 4]);
}

function queryMessage(text: string): Uint8Array {
  const body = new TextEncoder().encode(`${text}\0`);
  const message = new Uint8Array(5 + body.length);
  message[0] = 'Q'.charCodeAt(0);
  new DataView(message.buffer).setInt32(1, 4 + body.length);
  message.set(body, 5);
  return message;
}

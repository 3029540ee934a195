// What the fake Slack received, in order, with what it answered. The server records a call only
// after it has mutated its state, so a test resumed by waitFor() always sees the stored result.

/** One request to the fake: a Web API method, or `response_url` for a POST to a response URL. */
export interface SlackCall {
  seq: number;
  method: string;
  /** The parsed arguments (form fields with JSON strings such as `blocks` decoded). */
  args: Record<string, unknown>;
  status: number;
  /** The JSON body the fake answered with. */
  response: Record<string, unknown>;
  /** `response.ok === true`: false for platform errors and injected failures alike. */
  ok: boolean;
  /** `response.error` when there was one, e.g. 'ratelimited', 'msg_too_long'. */
  error?: string;
  /** True when the answer came from failNext() rather than from the method itself. */
  injected: boolean;
  at: number;
}

export type CallPredicate = (call: SlackCall) => boolean;

interface Waiter {
  method: string;
  pred: CallPredicate;
  resolve: (c: SlackCall) => void;
}

export class CallLog {
  readonly all: SlackCall[] = [];
  private readonly waiters = new Set<Waiter>();

  record(call: Omit<SlackCall, 'seq' | 'at' | 'ok' | 'error'>): SlackCall {
    const error = typeof call.response.error === 'string' ? call.response.error : undefined;
    const full: SlackCall = {
      ...call,
      seq: this.all.length + 1,
      at: Date.now(),
      ok: call.response.ok === true,
      ...(error ? { error } : {}),
    };
    this.all.push(full);
    for (const w of [...this.waiters]) {
      if (w.method === full.method && w.pred(full)) {
        this.waiters.delete(w);
        w.resolve(full);
      }
    }
    return full;
  }

  /** Every call of `method` (failed and injected ones included), optionally filtered. */
  of(method: string, pred: CallPredicate = () => true): SlackCall[] {
    return this.all.filter((c) => c.method === method && pred(c));
  }

  count(method: string, pred?: CallPredicate): number {
    return this.of(method, pred).length;
  }

  /**
   * The first call of `method` matching `pred` — already received or still to come. All calls count,
   * failed ones too (pass `(c) => c.ok` to wait for a success). Rejects after `timeoutMs`, naming what arrived.
   */
  waitFor(method: string, pred: CallPredicate = () => true, timeoutMs = 5000): Promise<SlackCall> {
    const seen = this.of(method, pred)[0];
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        method,
        pred,
        resolve: (c) => {
          clearTimeout(timer);
          resolve(c);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        const got = this.all.map((c) => `${c.method}${c.ok ? '' : `(${c.error ?? c.status})`}`).join(', ');
        reject(new Error(`fake Slack: no matching ${method} call within ${timeoutMs} ms; received: [${got}]`));
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }
}

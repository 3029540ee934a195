// Every API request the fake received, in arrival order. A call is recorded only once the fake has
// finished with it (state mutated, or error decided), so a test resumed by `waitFor` always sees the
// store already updated — recording on arrival caused a real race in an earlier Discord fake.
// Consequence: a long poll being held is not in the log until it is answered (update, timeout,
// disconnect or 409).

/** One request: `ok` says whether the fake accepted it; `status` is the HTTP status it answered. */
export interface CallRecord {
  method: string;
  body: Record<string, unknown>;
  at: number;
  ok: boolean;
  status: number;
  description?: string;
}

interface Waiter {
  match: (c: CallRecord) => boolean;
  resolve: (c: CallRecord) => void;
}

export class CallLog {
  readonly all: CallRecord[] = [];
  private waiters: Waiter[] = [];

  /** Internal: appends a finished call and wakes matching waiters. */
  record(call: CallRecord): void {
    this.all.push(call);
    for (const w of [...this.waiters]) {
      if (!w.match(call)) continue;
      this.waiters.splice(this.waiters.indexOf(w), 1);
      w.resolve(call);
    }
  }

  /**
   * Resolves with the first ACCEPTED call of `method` matching `predicate` — one already recorded,
   * or the next to arrive. Rejected calls (4xx, injected 429) are skipped: use `waitForAttempt`.
   * Rejects after `timeoutMs` (default 5000) naming what did arrive, so a failing test says why.
   */
  waitFor(method: string, predicate?: (c: CallRecord) => boolean, timeoutMs = 5000): Promise<CallRecord> {
    return this.wait(method, (c) => c.ok && (predicate?.(c) ?? true), timeoutMs, 'accepted ');
  }

  /** Like `waitFor`, but any attempt counts, including rejected and failed-on-purpose ones. */
  waitForAttempt(method: string, predicate?: (c: CallRecord) => boolean, timeoutMs = 5000): Promise<CallRecord> {
    return this.wait(method, (c) => predicate?.(c) ?? true, timeoutMs, '');
  }

  /** Attempts of `method` so far; `{ ok: true }` counts only accepted ones, `{ ok: false }` only rejected. */
  count(method: string, filter: { ok?: boolean } = {}): number {
    return this.of(method).filter((c) => filter.ok === undefined || c.ok === filter.ok).length;
  }

  /** The recorded attempts of one method, oldest first. */
  of(method: string): CallRecord[] {
    return this.all.filter((c) => c.method === method);
  }

  private wait(method: string, pred: (c: CallRecord) => boolean, timeoutMs: number, kind: string): Promise<CallRecord> {
    const match = (c: CallRecord): boolean => c.method === method && pred(c);
    const seen = this.all.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        match,
        resolve: (c) => {
          clearTimeout(timer);
          resolve(c);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        const got = this.all.map((c) => `${c.method}${c.ok ? '' : `(${c.status})`}`).join(', ') || 'nothing';
        reject(new Error(`fake-telegram: no ${kind}${method} call matched within ${timeoutMs} ms; received: ${got}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }
}

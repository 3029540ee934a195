// What the fake Discord received, in order, and injected failures. A call is recorded only after the
// fake has mutated its state, so a test resuming from `waitFor` always sees the store already updated.

/** Bodies are whatever JSON the client sent; `any` keeps test assertions short. */
// biome-ignore lint/suspicious/noExplicitAny: bodies are whatever JSON the client sent.
export type Json = any;

export interface Call {
  /** Route template, e.g. `POST /channels/:id/messages`, or `GATEWAY IDENTIFY` for gateway ops. */
  route: string;
  method: string;
  /** Concrete path under /api/v10 (or the gateway op name). */
  path: string;
  params: Record<string, string>;
  query: Record<string, string>;
  body: Json;
  headers: Record<string, string>;
  /** HTTP status the fake answered with (0 for gateway ops). */
  status: number;
  at: number;
}

export type CallPredicate = (call: Call) => boolean;

export class CallLog {
  readonly calls: Call[] = [];
  private waiters: Array<{ route: string; pred: CallPredicate; resolve: (c: Call) => void }> = [];

  record(call: Call): void {
    this.calls.push(call);
    for (const w of [...this.waiters]) {
      if (w.route === call.route && w.pred(call)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve(call);
      }
    }
  }

  all(route?: string, pred: CallPredicate = () => true): Call[] {
    return this.calls.filter((c) => (route === undefined || c.route === route) && pred(c));
  }

  count(route?: string, pred?: CallPredicate): number {
    return this.all(route, pred).length;
  }

  /**
   * The first call (already recorded or future) on `route` matching `pred`. Looking at past calls too
   * avoids the race where the client was faster than the test; use `pred` to pick a later one.
   */
  waitFor(route: string, pred: CallPredicate = () => true, timeoutMs = 5000): Promise<Call> {
    const seen = this.calls.find((c) => c.route === route && pred(c));
    if (seen) return Promise.resolve(seen);
    return new Promise<Call>((resolve, reject) => {
      const waiter = {
        route,
        pred,
        resolve: (c: Call) => {
          clearTimeout(timer);
          resolve(c);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        const got = this.calls.map((c) => `${c.route} -> ${c.status}`).join('\n  ');
        reject(new Error(`fake discord: no ${route} within ${timeoutMs} ms; received:\n  ${got}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }
}

/** One injected failure for a route; `times` (default 1) is how many consecutive calls it hits. */
export interface FailureSpec {
  status: number;
  body?: Json;
  headers?: Record<string, string>;
  times?: number;
}

export class Failures {
  private queue = new Map<string, Array<FailureSpec & { left: number }>>();

  add(route: string, spec: FailureSpec): void {
    const list = this.queue.get(route) ?? [];
    list.push({ ...spec, left: spec.times ?? 1 });
    this.queue.set(route, list);
  }

  /** Takes the next failure for `route`, shaped like Discord's own (429 gets header + body). */
  take(route: string): { status: number; body: Json; headers: Record<string, string> } | null {
    const list = this.queue.get(route);
    const head = list?.[0];
    if (!list || !head) return null;
    if (--head.left <= 0) list.shift();
    if (head.status !== 429) {
      return {
        status: head.status,
        body: head.body ?? { message: `${head.status}: fake failure`, code: 0 },
        headers: head.headers ?? {},
      };
    }
    // @discordjs/rest waits on the Retry-After header, not the body, so both must agree. The bucket
    // headers (remaining 0) are what Discord sends too; they make discord.js emit `rateLimited`.
    const retryAfter = Number(head.headers?.['Retry-After'] ?? head.body?.retry_after ?? 1);
    return {
      status: 429,
      body: head.body ?? { message: 'You are being rate limited.', retry_after: retryAfter, global: false },
      headers: {
        'Retry-After': String(retryAfter),
        'X-RateLimit-Limit': '5',
        'X-RateLimit-Remaining': '0',
        'X-RateLimit-Reset-After': String(retryAfter),
        'X-RateLimit-Reset': String(Date.now() / 1000 + retryAfter),
        'X-RateLimit-Scope': 'user',
        ...head.headers,
      },
    };
  }
}

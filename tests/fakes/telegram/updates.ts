// Where updates wait for the bot: the getUpdates long poll, or webhook delivery. Follows the real
// semantics grammy depends on: `offset` confirms (drops) older updates; an empty queue holds the
// request until an update arrives, the timeout ends, or the client disconnects; a newer getUpdates
// terminates a held one with 409; getUpdates is a 409 while a webhook is set.
import { TelegramApiError, badRequest, updateType, DEFAULT_EXCLUDED_UPDATES, type TgUpdate } from './wire.ts';

export interface Webhook {
  url: string;
  secret_token?: string;
  allowed_updates?: string[];
  max_connections: number;
}

/** One webhook POST the fake made, and how the bot answered it. */
export interface Delivery {
  update_id: number;
  status: number;
  at: number;
  body: string;
}

interface HeldPoll {
  wake: () => void;
  conflicted: boolean;
}

export class UpdateHub {
  webhook: Webhook | undefined;
  readonly deliveries: Delivery[] = [];
  private queue: TgUpdate[] = [];
  private lastUpdateId = 10_000; // real ids are large and not 1-based; nothing may assume otherwise
  private held = new Set<HeldPoll>();
  private allowed: string[] = [];
  private lastError: { date: number; message: string } | undefined;
  private delivering: Promise<void> = Promise.resolve();

  /** Queues an update (assigning `update_id`) and wakes the long poll or starts webhook delivery. */
  push(update: Omit<TgUpdate, 'update_id'>): TgUpdate {
    const full = this.stamp(update);
    this.queue.push(full);
    for (const poll of this.held) poll.wake();
    if (this.webhook) this.delivering = this.delivering.then(() => this.deliverQueued());
    return full;
  }

  /** Gives an update the next `update_id` without queuing it (explicit webhook posts). */
  stamp(update: Omit<TgUpdate, 'update_id'>): TgUpdate {
    return { ...update, update_id: ++this.lastUpdateId } as TgUpdate;
  }

  /** getUpdates; `signal` is the HTTP request's, aborted when the client goes away (bot.stop()). */
  async getUpdates(
    offset: number | undefined,
    limit = 100,
    timeout = 0,
    allowed: unknown,
    signal: AbortSignal,
  ): Promise<TgUpdate[]> {
    if (this.webhook)
      throw conflict(
        "can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
      );
    if (limit < 1 || limit > 100) limit = 100; // the real API clamps rather than rejects
    if (Array.isArray(allowed)) this.allowed = allowed.map(String); // remembered across calls, as documented
    if (offset !== undefined && offset > 0) this.queue = this.queue.filter((u) => u.update_id >= offset);
    else if (offset !== undefined && offset < 0) this.queue = this.queue.slice(offset);
    for (const poll of this.held) {
      poll.conflicted = true;
      poll.wake();
    }
    if (this.deliverable().length === 0 && timeout > 0) {
      const poll = await this.hold(timeout, signal);
      if (poll.conflicted)
        throw conflict('terminated by other getUpdates request; make sure that only one bot instance is running');
    }
    return this.deliverable().slice(0, limit);
  }

  setWebhook(hook: Webhook, dropPending: boolean): void {
    if (!/^[A-Za-z0-9_-]{1,256}$/.test(hook.secret_token ?? 'x'))
      throw badRequest('secret token contains unallowed characters');
    if (dropPending) this.queue = [];
    this.webhook = hook;
    this.lastError = undefined;
    for (const poll of this.held) {
      poll.conflicted = true;
      poll.wake();
    }
    this.delivering = this.delivering.then(() => this.deliverQueued());
  }

  deleteWebhook(dropPending: boolean): boolean {
    const had = this.webhook !== undefined;
    if (dropPending) this.queue = [];
    this.webhook = undefined;
    return had;
  }

  webhookInfo(): Record<string, unknown> {
    return {
      url: this.webhook?.url ?? '',
      has_custom_certificate: false,
      pending_update_count: this.queue.length,
      ...(this.webhook ? { max_connections: this.webhook.max_connections, ip_address: '127.0.0.1' } : {}),
      ...(this.webhook?.allowed_updates ? { allowed_updates: this.webhook.allowed_updates } : {}),
      ...(this.lastError ? { last_error_date: this.lastError.date, last_error_message: this.lastError.message } : {}),
    };
  }

  /**
   * POSTs one update to the webhook as Telegram does, outside the queue; `secretToken` overrides the
   * registered secret (`null` sends no header) so tests can check that the bot refuses strangers.
   */
  async post(update: TgUpdate, secretToken?: string | null): Promise<Delivery> {
    const hook = this.webhook;
    if (!hook) throw new Error('fake-telegram: no webhook is set; call setWebhook first');
    const secret = secretToken === undefined ? hook.secret_token : secretToken;
    const res = await fetch(hook.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(secret != null ? { 'x-telegram-bot-api-secret-token': secret } : {}),
      },
      body: JSON.stringify(update),
    });
    const delivery = { update_id: update.update_id, status: res.status, at: Date.now(), body: await res.text() };
    this.deliveries.push(delivery);
    return delivery;
  }

  /** Waits for in-flight webhook deliveries (used by close() and by tests). */
  settled(): Promise<void> {
    return this.delivering;
  }

  /** How many getUpdates calls are held open right now, waiting for an update. */
  heldPolls(): number {
    return this.held.size;
  }

  /** Ends every held poll now (server shutdown). */
  releaseAll(): void {
    for (const poll of this.held) poll.wake();
  }

  // In order, one at a time; a failed update stays queued and blocks later ones, as in Telegram.
  // Retried on the next push or setWebhook rather than on a timer, so tests stay deterministic.
  private async deliverQueued(): Promise<void> {
    while (this.webhook && this.queue.length > 0) {
      const next = this.queue[0]!;
      let ok = false;
      try {
        const d = await this.post(next);
        ok = d.status >= 200 && d.status < 300;
        if (!ok)
          this.lastError = { date: Math.floor(d.at / 1000), message: `Wrong response from the webhook: ${d.status}` };
      } catch (e) {
        this.lastError = {
          date: Math.floor(Date.now() / 1000),
          message: `Connection refused: ${(e as Error).message}`,
        };
      }
      if (!ok) return;
      this.queue = this.queue.filter((u) => u !== next);
    }
  }

  private deliverable(): TgUpdate[] {
    const wanted = (u: TgUpdate): boolean =>
      this.allowed.length > 0
        ? this.allowed.includes(updateType(u))
        : !DEFAULT_EXCLUDED_UPDATES.includes(updateType(u));
    // Unwanted updates are never delivered; Telegram drops them, so do we.
    this.queue = this.queue.filter(wanted);
    return this.queue;
  }

  private hold(timeoutSec: number, signal: AbortSignal): Promise<HeldPoll> {
    return new Promise((resolve) => {
      const finish = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', finish);
        this.held.delete(poll);
        resolve(poll);
      };
      const poll: HeldPoll = { conflicted: false, wake: finish };
      const timer = setTimeout(finish, timeoutSec * 1000);
      if (signal.aborted) return finish();
      signal.addEventListener('abort', finish);
      this.held.add(poll);
    });
  }
}

const conflict = (detail: string): TelegramApiError => new TelegramApiError(409, `Conflict: ${detail}`);

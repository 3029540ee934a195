import type { Clock } from '../clock.ts';
import type { Logger } from '../log/index.ts';
import { RefusalLimiter } from '../chat/index.ts';
import type { InboundEvent } from '../surface/index.ts';
import type { PairingStore } from './store.ts';

/** Options for {@link PairingDesk}. */
export interface PairingDeskOptions {
  store: PairingStore;
  /** How long a code is valid; default an hour. */
  ttlMs?: number;
  /** How often a stranger with a live code is told it again; default every 10 minutes. */
  remindEveryMs?: number;
  /** New codes this process gives per minute, all strangers together; beyond it they are refused as before. */
  perMinute?: number;
  /** Records the issue (`config_audit`). */
  audit: (event: InboundEvent, detail: string) => Promise<void>;
  /** Elapsed-time seam, in ms (monotonic); default `performance.now()`. */
  now?: () => number;
  /** Wall-clock time, for "valid for N more minutes". */
  clock: Clock;
  logger?: Logger;
}

const HOUR = 60 * 60_000;

/**
 * What a stranger who writes to the bot in private is told instead of a refusal: a pairing code an operator
 * accepts with `/pair`. One live code per stranger (a second message gets the same code, told again at most
 * every 10 minutes); new codes are capped per minute so a flood of strangers cannot fill the table. A
 * message in a group, or past the cap, is no pairing case: the usual refusal applies.
 */
export class PairingDesk {
  readonly #o: PairingDeskOptions;
  /** When each stranger was last told their live code: once per window, as refusals are (bounded in memory). */
  readonly #reminders: RefusalLimiter;
  readonly #queue = new Map<string, Promise<{ tell?: string }>>();
  #issued: number[] = [];

  constructor(options: PairingDeskOptions) {
    this.#o = options;
    this.#reminders = new RefusalLimiter({
      windowMs: options.remindEveryMs ?? 10 * 60_000,
      ...(options.now && { now: options.now }),
    });
  }

  /** `{ tell }`: say this; `{}`: say nothing (told a moment ago); undefined: not a pairing case. */
  async answer(event: InboundEvent): Promise<{ tell?: string } | undefined> {
    if (!event.direct || event.kind !== 'message') return undefined;
    const now = (this.#o.now ?? performance.now.bind(performance))();
    this.#issued = this.#issued.filter((at) => now - at < 60_000);
    if (this.#issued.length >= (this.#o.perMinute ?? 30)) return undefined;
    const user = `${event.platform}:${event.actor.id}`;
    // One at a time per stranger: two messages at once would both find the code untold and tell it twice.
    const before = this.#queue.get(user) ?? Promise.resolve();
    const turn = before.catch(() => {}).then(() => this.#answerFor(event, user, now));
    this.#queue.set(user, turn);
    try {
      return await turn;
    } finally {
      if (this.#queue.get(user) === turn) this.#queue.delete(user);
    }
  }

  async #answerFor(event: InboundEvent, user: string, now: number): Promise<{ tell?: string }> {
    const ttlMs = this.#o.ttlMs ?? HOUR;
    const issued = await this.#o.store.issue(
      { user, chat: event.chat, ...(event.actor.displayName && { displayName: event.actor.displayName }) },
      ttlMs,
    );
    // A live code is told again once per window; a fresh one always (and starts the window when it may).
    const due = this.#reminders.shouldTell(user, event.chat);
    if (!issued.fresh && !due) return {};
    if (issued.fresh) {
      this.#issued.push(now);
      await this.#o.audit(event, `code issued to ${user}`);
    }
    const minutes = Math.max(1, Math.round((issued.expiresAt.getTime() - this.#o.clock.now().getTime()) / 60_000));
    return { tell: pairingText(issued.code, user, minutes) };
  }
}

/** The message with the code: what to do with it, how long it lasts, and the person's id. */
function pairingText(code: string, user: string, minutes: number): string {
  return (
    `👋 Hi! This Kazma answers only the people its operators let in. To ask for access, send this code to an ` +
    `operator: ${code}\nThey let you in with /pair ${code} (valid for ${minutes} more minutes). ` +
    `Your id: ${user}.`
  );
}

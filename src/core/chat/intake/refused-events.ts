// What an event refused by access control gets: a line in the log, and its sender told so in private —
// once per person per chat per window (RefusalLimiter), so a stranger in a busy group gets one polite
// refusal, not one per message.
import type { Logger } from '../../log/index.ts';
import { type Inbox, inboxKey } from '../inbox/inbox.ts';
import { chatOf, type ChatRef, type Actor, type InboundEvent } from '../../surface/index.ts';
import type { RefusalLimiter } from './refusals.ts';

export interface RefusedEventsOptions {
  limiter: RefusalLimiter;
  inbox: Pick<Inbox, 'recorded' | 'owner'>;
  /** Says `text` to `actor` privately in `chat` (never throws). */
  tell: (chat: ChatRef, actor: Actor, text: string) => Promise<void>;
  /** DM pairing's answer in place of the refusal (PipelineOptions.pairing). */
  pairing?: ((event: InboundEvent) => Promise<{ tell?: string } | undefined>) | undefined;
  logger?: Logger | undefined;
}

export class RefusedEvents {
  readonly #o: RefusedEventsOptions;

  constructor(options: RefusedEventsOptions) {
    this.#o = options;
  }

  /** A refused event just written: logged, and its sender told. */
  async first(event: InboundEvent, reason: string): Promise<void> {
    this.#logRefused(event);
    await this.#answer(event, reason);
  }

  /** A pairing code where DM pairing answers, else the refusal (once per person per chat per window). */
  async #answer(event: InboundEvent, reason: string): Promise<void> {
    const paired = await this.#pairing(event);
    if (paired) {
      if (paired.tell) await this.#o.tell(event.chat, event.actor, paired.tell);
      return;
    }
    if (this.#mayTell(event)) await this.#o.tell(event.chat, event.actor, refusalText(reason));
  }

  /** DM pairing's answer; one it could not give (the database is away) falls back to the refusal. */
  async #pairing(event: InboundEvent): Promise<{ tell?: string } | undefined> {
    try {
      return await this.#o.pairing?.(event);
    } catch (error) {
      this.#o.logger?.warn({ err: error, platform: event.platform }, 'could not give a pairing code');
      return undefined;
    }
  }

  /**
   * A refused event already written: a redelivery, or this process's own write whose answer was lost and
   * whose retry found the row — then its sender was never told. Only a refusal of this process's own is
   * told, as a first one is (so a redelivery after the telling tells nobody). Undefined: a duplicate.
   * Rejects with InboxUnavailableError when the row cannot be read back (the event is then not acknowledged).
   */
  async again(event: InboundEvent, reason: string): Promise<{ told: Promise<void> } | undefined> {
    const row = await this.#o.inbox.recorded(inboxKey(event));
    if (row.state !== 'refused' || row.owner !== this.#o.inbox.owner) return undefined;
    // A private chat may get its pairing code (told again at most every few minutes: PairingDesk).
    const pairing = this.#o.pairing !== undefined && event.direct === true;
    if (!pairing && !this.#mayTell(event)) return undefined;
    this.#logRefused(event); // the first attempt never got this far
    return {
      told: pairing ? this.#answer(event, reason) : this.#o.tell(event.chat, event.actor, refusalText(reason)),
    };
  }

  #logRefused(event: InboundEvent): void {
    this.#o.logger?.info(
      { platform: event.platform, actor: event.actor.id, chat: event.chat },
      'refused by access control',
    );
  }

  #mayTell(event: InboundEvent): boolean {
    return this.#o.limiter.shouldTell(`${event.platform}:${event.actor.id}`, chatOf(event.chat));
  }
}

function refusalText(reason: string): string {
  return `⛔ Sorry, ${reason}.`;
}

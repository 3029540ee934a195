// Slack requests in (through Bolt's listeners), InboundEvents out (see events.ts for what each payload
// means). Each is recorded, then acknowledged, then handled; nothing here waits on a model before Slack
// gets its answer. A click's or command's response URL stays open while the core handles
// it, so private answers reach that person (see responses.ts).
import type { App } from '@slack/bolt';
import { InFlight, type PlatformCoreLink } from '../../core/chat/index.ts';
import { InvalidInboundEventError, type InboundEvent } from '../../core/surface/index.ts';
import type { Logger } from '../../core/log/index.ts';
import { actionEvent, commandEvent, mentionEvent, messageEvent } from './events.ts';
import { parseActionBody, parseCommandBody, parseMessageEvent } from './payload-schema.ts';
import type { SlackAckControl } from './receiver.ts';
import { targetOf, type SlackIdentity } from './ids.ts';
import type { RespondFn, ResponseUrls } from './responses.ts';
import type { KnownThreads } from './threads.ts';

export interface SlackInboundOptions {
  pipeline: PlatformCoreLink['pipeline'];
  /** The bot itself (auth.test), known once the platform started. */
  me: () => SlackIdentity | undefined;
  threads: KnownThreads;
  responses: ResponseUrls;
  logger?: Logger;
}

const STOPPING = 'Kazma is restarting; try again in a minute.';

export class SlackInbound {
  readonly #o: SlackInboundOptions;
  readonly #inflight = new InFlight();

  constructor(options: SlackInboundOptions) {
    this.#o = options;
  }

  /**
   * Registers Kazma's listeners on the Bolt app. Each records its event first and only then lets Slack
   * know it arrived (the receiver's answer, or `ack()` for clicks and commands); an event that could not
   * be recorded is answered 5xx, and Slack delivers events again.
   */
  register(app: App): void {
    app.event('message', async ({ event, body, context }) => {
      await this.#taken(context, () =>
        this.take(
          this.#withMe((me) => messageEvent(parseMessageEvent(event), String(body.event_id), me, this.#o.threads)),
        ),
      );
    });
    app.event('app_mention', async ({ event, body, context }) => {
      await this.#taken(context, () => {
        const inbound = this.#withMe((me) => mentionEvent(parseMessageEvent(event), String(body.event_id), me));
        if (inbound && !inbound.fromSelf) this.#o.threads.add(inbound.chat);
        return this.take(inbound);
      });
    });
    // Every button of every Kazma message: the core's ids say what a click means.
    app.action(/.*/, async ({ ack, body, respond, context }) => {
      await this.#taken(context, () => this.take(actionEvent(parseActionBody(body)), respond as RespondFn), ack);
    });
    // Every slash command of this app is `/kazma <command>`, answered privately.
    app.command(/.*/, async ({ ack, command, respond, context }) => {
      await this.#taken(context, () => this.take(commandEvent(parseCommandBody(command)), respond as RespondFn), ack);
    });
  }

  /**
   * Hands one event to the pipeline. Resolves once it is recorded ('taken') or when Kazma is stopping
   * ('stopping': do not acknowledge); rejects when it could not be recorded. The work runs on after,
   * and `respond` answers its person privately while it does.
   */
  async take(event: InboundEvent | undefined, respond?: RespondFn): Promise<'taken' | 'stopping'> {
    if (!event) return 'taken';
    const accepted = await this.#o.pipeline.accept(event);
    if (accepted.status === 'stopping') {
      if (respond)
        await respond({ response_type: 'ephemeral', replace_original: false, text: STOPPING }).catch(() => undefined);
      return 'stopping';
    }
    const close = respond ? this.#o.responses.open(targetOf(event.chat).channel, event.actor.id, respond) : undefined;
    const work = accepted.done.then(
      () => undefined,
      (error: unknown) => this.#o.logger?.error({ err: error, event: event.eventId }, 'handling a Slack event failed'),
    );
    this.#inflight.track(work.finally(() => close?.()));
    return 'taken';
  }

  /** Records, then acknowledges; tells the receiver when recording failed (400 malformed, 503 otherwise). */
  async #taken(
    context: Record<string, unknown>,
    take: () => Promise<'taken' | 'stopping'>,
    ack?: () => Promise<void>,
  ): Promise<void> {
    const control = context.kazmaAck as SlackAckControl | undefined;
    let outcome: 'taken' | 'stopping';
    try {
      outcome = await take();
    } catch (error) {
      const malformed = error instanceof InvalidInboundEventError;
      this.#o.logger?.[malformed ? 'warn' : 'error'](
        { err: error },
        malformed ? 'a malformed Slack payload was refused' : 'a Slack event could not be recorded; answered 503',
      );
      control?.failed(malformed ? 400 : 503);
      return;
    }
    if (outcome === 'stopping') return control?.failed(503);
    await ack?.();
    control?.recorded();
  }

  /** Resolves when every event taken so far has been handled (turns finished or paused). */
  idle(): Promise<void> {
    return this.#inflight.idle();
  }

  #withMe<T>(convert: (me: SlackIdentity) => T | undefined): T | undefined {
    const me = this.#o.me();
    if (!me) this.#o.logger?.warn('a Slack event arrived before auth.test told Kazma who it is; dropped');
    return me ? convert(me) : undefined;
  }
}

// Slack requests in (through Bolt's listeners), InboundEvents out (see events.ts for what each payload
// means). Each is recorded, then acknowledged, then handled; nothing here waits on a model before Slack
// gets its answer. A click's or command's response URL stays open while the core handles
// it, so private answers reach that person (see responses.ts).
import type { App } from '@slack/bolt';
import { InFlight, type PlatformCoreLink } from '../../core/chat/index.ts';
import { InvalidInboundEventError, type InboundEvent, reasonButtonTarget } from '../../core/surface/index.ts';
import type { Logger } from '../../core/log/index.ts';
import { actionEvent, commandEvent, mentionEvent, messageEvent } from './events.ts';
import { parseActionBody, parseCommandBody, parseMessageEvent, parseViewSubmission } from './payload-schema.ts';
import { BLANK_REASON, REASON_VIEW, reasonSubmission, type ReasonPlace } from './reasons.ts';
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
  /** Opens the modal that asks a Deny's reason (reasons.ts), with the click's trigger_id. */
  openReason: (input: { triggerId: string; actionId: string; place: ReasonPlace }) => Promise<void>;
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
      const event = actionEvent(parseActionBody(body));
      if (event && (await this.#askedWhy(event, parseActionBody(body).trigger_id))) return ack();
      await this.#taken(context, () => this.take(event, respond as RespondFn), ack);
    });
    // A reason modal's submission is the tap it was opened for, with the reason; a blank one is refused in it.
    app.view(REASON_VIEW, async ({ ack, body, context }) => {
      const event = reasonSubmission(parseViewSubmission(body));
      if (event === 'blank') return ack(BLANK_REASON);
      await this.#taken(context, () => this.take(event), ack);
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

  /**
   * A click on a button that asks why first opens the reason modal and decides nothing yet: true. False when it is
   * another button, or the modal could not open (then the plain tap goes on, and the core asks for the reason).
   */
  async #askedWhy(event: InboundEvent & { kind: 'action' }, triggerId: string | undefined): Promise<boolean> {
    const actionId = reasonButtonTarget(event.actionId);
    if (actionId === undefined) return false;
    event.actionId = actionId;
    if (triggerId === undefined) return false;
    const { channel, threadTs } = targetOf(event.chat);
    const place = { channel, ...(threadTs && { threadTs }), ...(event.message && { messageTs: event.message.id }) };
    try {
      await this.#o.openReason({ triggerId, actionId, place });
      return true;
    } catch (error) {
      this.#o.logger?.warn({ err: error }, 'the reason modal did not open; the Deny goes on as a plain tap');
      return false;
    }
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

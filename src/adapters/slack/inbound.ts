// Slack requests in (through Bolt's listeners), InboundEvents out (see events.ts for what each payload
// means). Clicks and commands are acknowledged first, then handled; nothing here waits on a model
// before Slack gets its answer. A click's or command's response URL stays open while the core handles
// it, so private answers reach that person (see responses.ts).
import type { App } from '@slack/bolt';
import type { InboundEvent, PipelineOutcome } from '../../core/chat/index.ts';
import type { Logger } from '../../core/log/index.ts';
import { actionEvent, commandEvent, mentionEvent, messageEvent, type SlackActionBody, type SlackCommandBody, type SlackMessageEvent } from './events.ts';
import { targetOf, type SlackIdentity } from './ids.ts';
import type { RespondFn, ResponseUrls } from './responses.ts';
import type { KnownThreads } from './threads.ts';

export interface SlackInboundOptions {
  pipeline: { handle(event: InboundEvent): Promise<PipelineOutcome> };
  /** The bot itself (auth.test), known once the platform started. */
  me: () => SlackIdentity | undefined;
  threads: KnownThreads;
  responses: ResponseUrls;
  logger?: Logger;
}

const STOPPING = 'Kazma is restarting; try again in a minute.';

export class SlackInbound {
  readonly #o: SlackInboundOptions;
  readonly #inflight = new Set<Promise<void>>();

  constructor(options: SlackInboundOptions) {
    this.#o = options;
  }

  /** Registers Kazma's listeners on the Bolt app. */
  register(app: App): void {
    app.event('message', async ({ event, body }) => {
      this.take(this.#withMe((me) => messageEvent(event as unknown as SlackMessageEvent, String(body.event_id), me, this.#o.threads)));
    });
    app.event('app_mention', async ({ event, body }) => {
      const inbound = this.#withMe((me) => mentionEvent(event as unknown as SlackMessageEvent, String(body.event_id), me));
      if (inbound && !inbound.fromSelf) this.#o.threads.add(inbound.chat);
      this.take(inbound);
    });
    // Every button of every Kazma message: the core's ids say what a click means.
    app.action(/.*/, async ({ ack, body, respond }) => {
      await ack();
      this.take(actionEvent(body as unknown as SlackActionBody), respond as RespondFn);
    });
    // Every slash command of this app is `/kazma <command>`, answered privately.
    app.command(/.*/, async ({ ack, command, respond }) => {
      await ack();
      this.take(commandEvent(command as unknown as SlackCommandBody), respond as RespondFn);
    });
  }

  /** Hands one event to the pipeline without waiting for it; `respond` answers its person privately. Never throws. */
  take(event: InboundEvent | undefined, respond?: RespondFn): void {
    if (!event) return;
    const close = respond ? this.#o.responses.open(targetOf(event.chat).channel, event.actor.id, respond) : undefined;
    const work = this.#o.pipeline.handle(event).then(
      async (outcome) => {
        if (outcome === 'stopping' && respond) await respond({ response_type: 'ephemeral', replace_original: false, text: STOPPING });
      },
      (error: unknown) => this.#o.logger?.error({ err: error, event: event.eventId }, 'handling a Slack event failed'),
    );
    this.#track(work.catch(() => undefined).finally(() => close?.()));
  }

  /** Resolves when every event taken so far has been handled (turns finished or paused). */
  async idle(): Promise<void> {
    while (this.#inflight.size > 0) await Promise.all([...this.#inflight]);
  }

  #withMe<T>(convert: (me: SlackIdentity) => T | undefined): T | undefined {
    const me = this.#o.me();
    if (!me) this.#o.logger?.warn('a Slack event arrived before auth.test told Kazma who it is; dropped');
    return me ? convert(me) : undefined;
  }

  #track(work: Promise<void>): void {
    this.#inflight.add(work);
    void work.then(() => this.#inflight.delete(work));
  }
}

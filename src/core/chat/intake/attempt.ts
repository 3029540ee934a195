// One attempt at a recorded event's work, and how its inbox row ends: done, failed (the chat told why), given
// up after too many attempts (each one stopped the process), or left running for the next start.
import { parseCommand } from '../../commands/index.ts';
import type { ChatRef, InboundEvent } from '../../surface/index.ts';
import { TurnInterruptedError, type AheadLease, type RowEnd } from '../../turns/index.ts';
import { inboxKey, turnIdOf, type InboxRow } from '../inbox/inbox.ts';
import type { PipelineOptions, PipelineOutcome, Work } from './pipeline-types.ts';
import type { Say } from './work-plan.ts';

export class Attempts {
  readonly #o: Pick<PipelineOptions, 'maxAttempts' | 'logger' | 'runner'>;
  readonly #say: Pick<Say, 'send'>;

  constructor(options: Pick<PipelineOptions, 'maxAttempts' | 'logger' | 'runner'>, say: Pick<Say, 'send'>) {
    this.#o = options;
    this.#say = say;
  }

  /**
   * Runs the work of a row this process holds, and says how the row ends: done, or failed. An event that
   * already began `maxAttempts` times (each time the process stopped) is given up with a message instead
   * of started again. A shutdown leaves the row running, for the next start (no end).
   */
  async run(
    event: InboundEvent,
    row: InboxRow,
    work: Work,
    options?: Parameters<Work['run']>[0],
  ): Promise<{ outcome: PipelineOutcome; end?: RowEnd }> {
    const key = inboxKey(event);
    const { logger } = this.#o;
    const maxAttempts = this.#o.maxAttempts ?? 3;
    if (row.attempts > maxAttempts) {
      await this.#giveUp(event, row.attempts - 1, options?.ahead).catch((error: unknown) =>
        logger?.error({ err: error }, 'could not end an event that kept stopping Kazma'),
      );
      return {
        outcome: 'handled',
        end: { key, state: 'failed', error: `given up after ${row.attempts - 1} attempts` },
      };
    }
    try {
      await work.run({ ...options, ...(row.attempts > 1 && { retaken: true }) });
      return { outcome: 'handled', end: { key, state: 'done' } };
    } catch (error) {
      if (error instanceof TurnInterruptedError) return { outcome: 'stopping' };
      await this.#failed(event.chat, error);
      return {
        outcome: 'handled',
        end: { key, state: 'failed', error: error instanceof Error ? error.message : String(error) },
      };
    }
  }

  async #giveUp(event: InboundEvent, attempts: number, ahead?: AheadLease): Promise<void> {
    this.#o.logger?.error(
      { platform: event.platform, event: event.eventId, attempts },
      'an event stopped Kazma every time it was worked on; giving it up',
    );
    const text =
      `⚠️ I could not finish this: Kazma stopped ${attempts} times while working on it, so I have given ` +
      `up on it. Nothing more will run for it; send it again if you still need it.`;
    if (event.kind === 'message' && !parseCommand(event.text))
      await this.#o.runner.endTurn(
        { chat: event.chat, turnId: turnIdOf(inboxKey(event)), text },
        ahead ? { ahead } : {},
      );
    else await this.#say.send(event.chat, text);
  }

  async #failed(chat: ChatRef, error: unknown): Promise<void> {
    this.#o.logger?.error({ err: error, chat }, 'handling an event failed');
    await this.#say.send(
      chat,
      `⚠️ Something went wrong handling that: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

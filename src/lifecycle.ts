import type { Logger } from './core/log/index.ts';

/**
 * Ordered shutdown: what started last stops first, each step bounded by the remaining time so one
 * stuck dependency cannot keep the process from exiting.
 */
export class Lifecycle {
  #steps: Array<{ name: string; stop: () => Promise<void> }> = [];
  #stopping: Promise<void> | undefined;

  constructor(private readonly logger: Logger) {}

  /** Registers a step to run at stop, before every step registered earlier. */
  onStop(name: string, stop: () => Promise<void> | void): void {
    this.#steps.push({ name, stop: async () => stop() });
  }

  /** Runs every step once (later calls share the first run). */
  stop(timeoutMs: number): Promise<void> {
    this.#stopping ??= this.#run(timeoutMs);
    return this.#stopping;
  }

  async #run(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (const step of [...this.#steps].reverse()) {
      const left = Math.max(100, deadline - Date.now());
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), left)));
      try {
        const outcome = await Promise.race([step.stop().then(() => 'done' as const), timedOut]);
        if (outcome === 'timeout') this.logger.warn({ step: step.name }, 'stop step timed out');
      } catch (error) {
        this.logger.error({ step: step.name, err: error }, 'stop step failed');
      } finally {
        clearTimeout(timer);
      }
    }
  }
}

// The core's graceful stop: intake closes, then chat turns and background jobs race the same deadline;
// what does not finish is aborted and handed back. Once: a second call waits for the first.
import type { Logger } from '../core/log/index.ts';
import { withTimeout } from '../core/with-timeout.ts';
import type { Base } from './base.ts';
import type { Modules } from './modules.ts';

export function coreStopper(base: Base, m: Modules, logger: Logger): (timeoutMs: number) => Promise<void> {
  let stopping: Promise<void> | undefined;
  const stopOnce = async (timeoutMs: number) => {
    m.chat.pipeline.close();
    // Chat turns and background jobs get the same time to finish; then their turns are stopped. A
    // stopped chat turn is taken up at the next start (inbox); a stopped job fails its attempt and is
    // retried by any worker, continuing its task from the checkpoint.
    const [turns, background] = await Promise.all([
      m.queues.drain(timeoutMs, () => m.agent.abort()),
      withTimeout(base.jobs.closeWorkers(), timeoutMs).then(
        () => 'drained' as const,
        async () => {
          m.agent.abort();
          await base.jobs.closeWorkers();
          return 'aborted' as const;
        },
      ),
    ]);
    if (turns === 'aborted') logger.warn('turns still running at shutdown were stopped; the next start takes them up');
    if (background === 'aborted')
      logger.warn(
        'background jobs still running at shutdown were stopped and handed back; another worker (or the next ' +
          'start) continues them',
      );
    m.chat.inbox.stopHeartbeat();
    await m.agent.close();
  };
  return (timeoutMs) => (stopping ??= stopOnce(timeoutMs));
}

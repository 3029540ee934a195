import type { Sql } from 'postgres';

/** The channel `/stop` asks another process on. */
const CHANNEL = 'kazma_stop';

/**
 * `/stop` across processes on PostgreSQL (LISTEN/NOTIFY): the process that received the command tells the
 * one holding the thread's lease to stop its drive there. A payload names the thread and the holder; every
 * process hears it and only the holder acts. PGlite has one process: none is needed.
 */
export interface StopSignal {
  /** Asks `holder` (a process name, the lease's owner) to stop its drive on `threadId`. */
  send(threadId: string, holder: string): Promise<void>;
  /** Calls `listener` on every request; resolves to what stops listening. */
  listen(listener: (request: { threadId: string; holder: string }) => void): Promise<() => Promise<void>>;
}

export function pgStopSignal(client: Sql): StopSignal {
  return {
    async send(threadId, holder) {
      await client.notify(CHANNEL, JSON.stringify({ threadId, holder }));
    },
    async listen(listener) {
      // postgres.js keeps a connection of its own for LISTEN and listens again after it reconnects.
      const { unlisten } = await client.listen(CHANNEL, (payload) => {
        try {
          const request = JSON.parse(payload) as { threadId?: unknown; holder?: unknown };
          if (typeof request.threadId === 'string' && typeof request.holder === 'string')
            listener({ threadId: request.threadId, holder: request.holder });
        } catch {
          // Not ours: a payload any client could send; ignored.
        }
      });
      return unlisten;
    },
  };
}

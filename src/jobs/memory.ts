// Noticing that Redis forgot this install's jobs: restarted without persistence, failed over to an empty
// replica, or flushed. BullMQ cannot tell (an empty queue looks like an idle one), and every job it held
// is derived from rows in the database, so the cure is to derive them again (src/assembly/restore.ts).
import type { Logger } from '../core/log/index.ts';

/** The few Redis commands the watch uses, on a client that emits `ready` when it (re)connects. */
export interface MarkerClient {
  exists(key: string): Promise<number>;
  set(key: string, value: string): Promise<unknown>;
  on(event: 'ready', listener: () => void): unknown;
  off(event: 'ready', listener: () => void): unknown;
}

export interface MemoryWatchOptions {
  client: MarkerClient;
  /** The marker's key, under the install's prefix, so a flush of another install's keys is not noticed. */
  key: string;
  /** How often to look when nothing reconnected (a FLUSHALL keeps the connection). */
  everyMs: number;
  /**
   * True: a marker missing at start is a loss too (a process that derives nothing at start: `kazma worker`).
   * False: the start-up recovery derives what Redis lacks, and the marker is only written.
   */
  lostAtStart: boolean;
  /** Re-creates the jobs; the marker is written again only after it resolved, so a crash retries it. */
  onLost: () => Promise<void>;
  logger: Logger;
}

/**
 * Writes the marker now (or, with `lostAtStart`, checks it first), then checks it every
 * `everyMs` and at each reconnection. Gone: `onLost`, then the marker again. A failed check (Redis
 * unreachable) waits for the next; an outage is the outage log's to say. Returns a stop function.
 */
export async function watchMemory(o: MemoryWatchOptions): Promise<() => void> {
  let checking: Promise<void> | undefined;
  let stopped = false;
  const check = async () => {
    if ((await o.client.exists(o.key)) > 0) return;
    o.logger.warn({ key: o.key }, 'redis has forgotten the jobs it held (restarted empty, failed over or flushed)');
    await o.onLost();
    await o.client.set(o.key, new Date().toISOString());
  };
  const tick = () => {
    if (stopped || checking) return;
    checking = check()
      .catch((error: unknown) => o.logger.debug({ err: error }, 'could not check whether redis kept its jobs'))
      .finally(() => {
        checking = undefined;
      });
  };
  if (o.lostAtStart) await check();
  else await o.client.set(o.key, new Date().toISOString());
  const timer = setInterval(tick, o.everyMs);
  timer.unref();
  o.client.on('ready', tick);
  return () => {
    stopped = true;
    clearInterval(timer);
    o.client.off('ready', tick);
  };
}

import { randomUUID } from 'node:crypto';
import type { Sql } from 'postgres';

/** The channel `/stop` asks another process on, and hears its answer on. */
const CHANNEL = 'kazma_stop';
/** How long a request waits for its answer before it is sent again, and how many times it is sent. */
const ANSWER_MS = 400;
const SENDS = 4;
/** Requests answered lately, by id: one sent again (its answer lost) is answered as before, not run twice. */
const REMEMBERED = 256;

/** What the holder did with a request (its own `/stop`'s outcome), or `unconfirmed`: no answer came. */
export type RemoteStopOutcome = 'stopped' | 'refused' | 'nothing' | 'unconfirmed';

/**
 * `/stop` across processes on PostgreSQL (LISTEN/NOTIFY): the process that received the command tells the
 * one holding the thread's lease to stop its drive there, and waits for its answer. A NOTIFY reaches only
 * the connections listening at that moment: one sent while the holder's LISTEN connection was being made
 * again (postgres.js reconnects it) is lost, so a request not answered within {@link ANSWER_MS} is sent
 * again, up to {@link SENDS} times; the holder answers a request it already ran with the outcome it had.
 * PGlite has one process: none is needed.
 */
export interface StopSignal {
  /** Asks `holder` (a process name, the lease's owner) to stop its drive on `threadId`; resolves to its answer. */
  send(threadId: string, holder: string): Promise<RemoteStopOutcome>;
  /** Runs `stop` for every request addressed to `me`, answering each; resolves to what stops listening. */
  listen(
    me: string,
    stop: (threadId: string) => Exclude<RemoteStopOutcome, 'unconfirmed'>,
  ): Promise<() => Promise<void>>;
}

type Message =
  | { kind: 'stop'; id: string; threadId: string; holder: string }
  | { kind: 'answer'; id: string; outcome: Exclude<RemoteStopOutcome, 'unconfirmed'> };

const OUTCOMES = new Set(['stopped', 'refused', 'nothing']);

/** A payload as a message of ours; undefined for anything else (any client may NOTIFY this channel). */
function parse(payload: string): Message | undefined {
  try {
    const m = JSON.parse(payload) as Record<string, unknown>;
    if (typeof m.id !== 'string') return undefined;
    if (m.kind === 'stop' && typeof m.threadId === 'string' && typeof m.holder === 'string')
      return { kind: 'stop', id: m.id, threadId: m.threadId, holder: m.holder };
    if (m.kind === 'answer' && typeof m.outcome === 'string' && OUTCOMES.has(m.outcome))
      return { kind: 'answer', id: m.id, outcome: m.outcome as 'stopped' };
  } catch {
    // not JSON: not ours
  }
  return undefined;
}

export function pgStopSignal(client: Sql): StopSignal {
  const waiting = new Map<string, (outcome: Exclude<RemoteStopOutcome, 'unconfirmed'>) => void>();
  const answered = new Map<string, Exclude<RemoteStopOutcome, 'unconfirmed'>>();
  let holder: { me: string; stop: Parameters<StopSignal['listen']>[1] } | undefined;
  const notify = (message: Message) => client.notify(CHANNEL, JSON.stringify(message));

  const heard = (payload: string) => {
    const message = parse(payload);
    if (message?.kind === 'answer') waiting.get(message.id)?.(message.outcome);
    if (message?.kind !== 'stop' || !holder || message.holder !== holder.me) return;
    let outcome = answered.get(message.id);
    if (!outcome) {
      outcome = holder.stop(message.threadId);
      answered.set(message.id, outcome);
      if (answered.size > REMEMBERED) answered.delete(answered.keys().next().value!);
    }
    void notify({ kind: 'answer', id: message.id, outcome }).catch(() => undefined); // unanswered: sent again
  };
  // postgres.js keeps a connection of its own for LISTEN and listens again after it reconnects.
  let listening: ReturnType<Sql['listen']> | undefined;
  const listen = () => {
    if (!listening) {
      listening = client.listen(CHANNEL, heard);
      listening.catch(() => (listening = undefined)); // the next call tries again
    }
    return listening;
  };

  return {
    async send(threadId, to) {
      await listen(); // the answer comes on the same channel
      const id = randomUUID();
      const answer = new Promise<Exclude<RemoteStopOutcome, 'unconfirmed'>>((resolve) => waiting.set(id, resolve));
      try {
        for (let sent = 0; sent < SENDS; sent++) {
          await notify({ kind: 'stop', id, threadId, holder: to });
          let timer: NodeJS.Timeout | undefined;
          const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ANSWER_MS)));
          const outcome = await Promise.race([answer, late]).finally(() => clearTimeout(timer));
          if (outcome !== 'late') return outcome;
        }
        return 'unconfirmed';
      } finally {
        waiting.delete(id);
      }
    },
    async listen(me, stop) {
      holder = { me, stop };
      const { unlisten } = await listen();
      return async () => {
        holder = undefined;
        listening = undefined;
        await unlisten();
      };
    },
  };
}

import type { Sql } from 'postgres';

/** The one channel: "something an open page shows may have changed" (its payload is empty). */
const CHANNEL = 'kazma_changes';

/**
 * A cluster-wide "something changed" signal on PostgreSQL (LISTEN/NOTIFY): every process tells it when it
 * dispatches outbox rows, and the web page of every process listens, so a decision made by another
 * `kazma start` or a worker redraws an open page as one made here does. PGlite has none: one process
 * owns it, and that process's own dispatches are the whole signal.
 */
export interface ChangeSignal {
  /** Tells every listener on the database. At most one NOTIFY is in flight; what comes meanwhile is one more. */
  notify(): void;
  /** Calls `listener` on every notification (its own process's too); resolves to what stops listening. */
  listen(listener: () => void): Promise<() => Promise<void>>;
}

export function pgChangeSignal(client: Sql): ChangeSignal {
  let sending = false;
  let again = false;
  const send = (): void => {
    sending = true;
    again = false;
    // A lost notification costs a page its live redraw until the next change or reload, nothing else:
    // it is never worth failing the dispatch that told it.
    void client
      .notify(CHANNEL, '')
      .catch(() => {})
      .finally(() => {
        sending = false;
        if (again) send();
      });
  };
  return {
    notify: () => {
      if (sending) again = true;
      else send();
    },
    async listen(listener) {
      // postgres.js keeps a connection of its own for LISTEN and listens again after it reconnects. What was
      // told while it was away is lost, so listening again counts as a change (and so does the first listen,
      // harmlessly: a redraw).
      const { unlisten } = await client.listen(
        CHANNEL,
        () => listener(),
        () => listener(),
      );
      return unlisten;
    },
  };
}

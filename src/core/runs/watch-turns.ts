import { and, eq, isNull, lte, or } from 'drizzle-orm';
import type { ChatRef } from '../surface/index.ts';
import { type Db, inbox } from '../db/index.ts';
import { ago, type WatchedKind } from './watch.ts';

/**
 * Chat turns in progress: running with no model or tool call begun or ended within the threshold.
 * The heartbeat (updated_at) is not progress — a live process whose turn hangs still beats. A turn
 * that fails already tells its chat, so failures open no incident; nothing to retry or cancel from a
 * card (the person sends the message again), so its card offers Dismiss only.
 */
export function watchTurns(db: Db): WatchedKind {
  return {
    kind: 'turn',
    tables: ['inbox'],
    actions: [],
    async scan({ now, stallAfterMs }) {
      const before = ago(now, stallAfterMs);
      // A row from before progress stamps existed has none: its last heartbeat stands in.
      const quiet = or(lte(inbox.progressAt, before), and(isNull(inbox.progressAt), lte(inbox.updatedAt, before)));
      const rows = await db
        .select()
        .from(inbox)
        .where(and(eq(inbox.state, 'running'), quiet));
      return rows.map((row) => ({
        workId: `${row.platform}:${row.eventId}`,
        problem: 'stalled' as const,
        since: row.progressAt ?? row.updatedAt,
        chat: row.chat as ChatRef,
        detail: 'a reply is being worked on, but no model or tool call has begun or ended since',
      }));
    },
    act: async () => 'nothing to do: send the message again',
  };
}

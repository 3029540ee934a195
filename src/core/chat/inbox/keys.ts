// Names of inbox rows and events (the platform's own event id), and the error for an event that could not
// be recorded.
import type { inbox } from '../../db/index.ts';
import { KazmaError } from '../../errors.ts';
import type { InboundEvent } from '../../surface/index.ts';

export type InboxRow = typeof inbox.$inferSelect;

/** Identifies one inbound event: the platform's own event id, unique per platform. */
export interface InboxKey {
  platform: string;
  eventId: string;
}

/**
 * The event could not be recorded (the database is unreachable or refused the write). The adapter
 * must not acknowledge it: a webhook answers 5xx, a poller keeps its offset, so the platform
 * delivers it again.
 */
export class InboxUnavailableError extends KazmaError {
  constructor(cause: unknown) {
    super(
      'inbox_unavailable',
      `the event could not be recorded, so it was not accepted (the platform will deliver it again): ` +
        `${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}

/** The inbox key of an event. */
export function inboxKey(event: Pick<InboundEvent, 'platform' | 'eventId'>): InboxKey {
  return { platform: event.platform, eventId: event.eventId };
}

/** The turn id of a message event: stable across restarts, so a resumed turn is recognised as the same. */
export function turnIdOf(key: InboxKey): string {
  return `${key.platform}:${key.eventId}`;
}

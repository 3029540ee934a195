import type { Db } from '../db/client.ts';
import { processedEvents } from '../db/schema/chat.ts';

/**
 * Remembers which platform events were taken in, durably, so a redelivery is dropped even after a
 * restart. Taking an event in is one statement, which is also the race guard between two deliveries.
 */
export class ProcessedEvents {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /**
   * Records the event. Statement: INSERT … ON CONFLICT (platform, event_id) DO NOTHING RETURNING.
   * Output: true for the first delivery, false for every later one. Invariant: of racing
   * deliveries of one event exactly one gets true. Recorded before the work runs, so an event is
   * handled at most once (a crash mid-turn does not replay it).
   */
  async firstSeen(platform: string, eventId: string): Promise<boolean> {
    const rows = await this.#db
      .insert(processedEvents)
      .values({ platform, eventId })
      .onConflictDoNothing({ target: [processedEvents.platform, processedEvents.eventId] })
      .returning({ eventId: processedEvents.eventId });
    return rows.length > 0;
  }
}

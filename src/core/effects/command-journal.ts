// The command journal: a chat command that changes state (/task, /remind, /cron add, /config tools toggle)
// makes its change once per inbound event, however often that event is taken up again after a crash.
import { and, eq, lte } from 'drizzle-orm';
import { commandEffects, type Db } from '../db/index.ts';

/** What a command's effect gives back: plain JSON (ids it made, a target it chose), so a replay is the same. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** One command's effect for one event: the event's turn id (`<platform>:<event id>`) and the effect's name. */
interface CommandEffectKey {
  event: string;
  command: string;
}

/** Thrown inside the transaction to roll it back: another run of the same event recorded its effect first. */
class RecordedMeanwhile extends Error {}

/**
 * The journal of the chat commands' effects (`command_effects`). An inbox row ends in a statement of its own
 * after its command ran, so a crash or a lost connection in between leaves the event to be taken up again
 * at the next start; the journal makes that second run give back the first run's result instead of acting
 * again (as the effect journal does for tools). What a command does outside the database after its change
 * committed — a job queued, a card or reply delivered — is keyed by what the change made (a job id is the
 * row id, a reply's outbox row the event), so doing it again changes nothing.
 */
export class CommandJournal {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /**
   * Runs `effect` once for `key`: its writes (made on the transaction it is handed) and the journal row
   * commit together, or neither does. A key already recorded gives back the stored result, and `effect`
   * does not run.
   * Statement: SELECT result … WHERE key; then BEGIN; effect(tx); INSERT … ON CONFLICT DO NOTHING RETURNING;
   * COMMIT (or ROLLBACK when the insert found a row).
   * Inputs: the event's key and the effect's name; the effect. Output: the effect's result, this run's or
   * the recorded one. Invariant: for one key at most one effect ever commits, and every run gets its result.
   */
  async once<T extends JsonValue>(key: CommandEffectKey, effect: (tx: Db) => Promise<T>): Promise<T> {
    const recorded = await this.#recorded(key);
    if (recorded) return recorded.result as T;
    try {
      return await this.#db.transaction(async (tx) => {
        const result = await effect(tx);
        const [row] = await tx
          .insert(commandEffects)
          .values({ eventKey: key.event, command: key.command, result })
          .onConflictDoNothing()
          .returning({ eventKey: commandEffects.eventKey });
        if (!row) throw new RecordedMeanwhile();
        return result;
      });
    } catch (error) {
      if (!(error instanceof RecordedMeanwhile)) throw error;
      return (await this.#recorded(key))!.result as T;
    }
  }

  /** Deletes rows older than `before`: their events left the inbox, so nothing takes them up again. */
  async prune(before: Date): Promise<number> {
    const rows = await this.#db
      .delete(commandEffects)
      .where(lte(commandEffects.createdAt, before))
      .returning({ eventKey: commandEffects.eventKey });
    return rows.length;
  }

  async #recorded(key: CommandEffectKey) {
    const [row] = await this.#db
      .select({ result: commandEffects.result })
      .from(commandEffects)
      .where(and(eq(commandEffects.eventKey, key.event), eq(commandEffects.command, key.command)));
    return row;
  }
}

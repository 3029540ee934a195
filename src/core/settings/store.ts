import { desc, eq, sql } from 'drizzle-orm';
import type { z } from 'zod';
import { type Db, type StoredActor, configAudit, settings } from '../db/index.ts';

/** One saved setting: the value that overrides kazma.yaml's key, and who saved it last, when. */
export interface SavedSetting {
  key: string;
  value: unknown;
  updatedBy?: string;
  updatedAt: Date;
}

/** One change `/config` (or the web page) made, as `config_audit` recorded it. */
export interface ConfigChange {
  actor: StoredActor;
  chat: string;
  command: string;
  detail?: string;
  at: Date;
}

/**
 * Settings changed at run time (`/config`, `kazma tools toggle`), kept in the database: kazma.yaml is
 * the starting point and is never rewritten; a row here overrides its key, across restarts and for
 * every process on the database.
 */
export class RuntimeSettings {
  constructor(private readonly db: Db) {}

  /** The saved value of `key`, or undefined when none is saved (or it no longer fits `schema`). */
  async get<T>(key: string, schema: z.ZodType<T>): Promise<{ value: T; updatedAt: Date } | undefined> {
    const [row] = await this.db.select().from(settings).where(eq(settings.key, key));
    const parsed = row && schema.safeParse(row.value);
    return parsed?.success ? { value: parsed.data, updatedAt: row!.updatedAt } : undefined;
  }

  /** Every saved setting, by key: what run time changed over kazma.yaml. */
  async list(): Promise<SavedSetting[]> {
    const rows = await this.db.select().from(settings).orderBy(settings.key);
    return rows.map(({ updatedBy, ...row }) => ({ ...row, ...(updatedBy && { updatedBy }) }));
  }

  /** The newest `limit` changes (`config_audit` rows that changed something), newest first. */
  async changes(limit: number): Promise<ConfigChange[]> {
    const rows = await this.db
      .select()
      .from(configAudit)
      .where(eq(configAudit.outcome, 'changed'))
      .orderBy(desc(configAudit.id))
      .limit(limit);
    return rows.map(({ actor, chat, command, detail, at }) => ({
      actor,
      chat,
      command,
      at,
      ...(detail && { detail }),
    }));
  }

  /** `db`: a transaction to save it in (a command's journalled one); default the database. */
  async set(key: string, value: unknown, by: string, db: Db = this.db): Promise<void> {
    await db
      .insert(settings)
      .values({ key, value, updatedBy: by })
      .onConflictDoUpdate({ target: settings.key, set: { value, updatedBy: by, updatedAt: sql`now()` } });
  }

  /** Removes the saved value of `key` (the file's, or the default, applies again); `db` as for {@link set}. */
  async clear(key: string, db: Db = this.db): Promise<void> {
    await db.delete(settings).where(eq(settings.key, key));
  }

  async audit(
    entry: {
      actor: StoredActor;
      chat: string;
      command: string;
      outcome: 'changed' | 'refused' | 'read';
      detail?: string;
    },
    db: Db = this.db,
  ): Promise<void> {
    await db.insert(configAudit).values(entry);
  }
}

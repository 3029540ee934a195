// The forget journal: every forgetting, appended (and synced) to a file of its own before the tombstone is
// written, so a database restored from a backup taken before the forget, or notes imported again, do not
// bring the words back: at start the journal is applied again (store.ts replayForgets). It holds the note's
// id, owner and words' hash (textHash), never the words. Keep it out of the database's backups.
import { mkdir, open, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** One forgetting, as journalled. */
export interface ForgetEntry {
  id: string;
  owner: string;
  hash: string;
  at: string;
}

/** The journal file at `path` (`memory.forget_journal`). */
export class ForgetJournal {
  constructor(readonly path: string) {}

  /** Appends `entries` and syncs the file: once this returns, the forgetting survives a restore. */
  async append(entries: readonly ForgetEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await mkdir(dirname(this.path), { recursive: true });
    const file = await open(this.path, 'a', 0o600);
    try {
      await file.appendFile(entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
      await file.sync();
    } finally {
      await file.close();
    }
  }

  /** Every entry; a line that is not one (a torn last write) is skipped. No file: none. */
  async entries(): Promise<ForgetEntry[]> {
    const text = await readFile(this.path, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return '';
      throw error;
    });
    const entries: ForgetEntry[] = [];
    for (const line of text.split('\n')) {
      try {
        const e = JSON.parse(line) as Partial<ForgetEntry>;
        if (typeof e.id === 'string' && typeof e.owner === 'string' && typeof e.hash === 'string')
          entries.push({ id: e.id, owner: e.owner, hash: e.hash, at: String(e.at ?? '') });
      } catch {
        // not an entry
      }
    }
    return entries;
  }
}

// Whether the database can write. On a full disk PostgreSQL (and PGlite, which is PostgreSQL) refuses
// every write that needs a new page — SQLSTATE 53100 disk_full, "could not extend file …: No space left
// on device" — while reads, and so `select 1`, still answer: a ping says nothing about it. Readiness
// therefore also remembers the last write refused for lack of space (on either database: PostgreSQL's
// disk is the server's, out of sight), and on PGlite measures the free space where its data lives.
import type { StatsFs } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Clock } from '../clock.ts';

/** SQLSTATE disk_full; the operating system's "no space" and "quota exceeded". */
const DISK_FULL_CODES = new Set(['53100', 'ENOSPC', 'EDQUOT']);
const DISK_FULL_TEXT = /No space left on device|Disk quota exceeded/i;

/** True when `error` (or what it wraps: drizzle puts the driver's error in `cause`) is a lack of disk space. */
export function isDiskFull(error: unknown): boolean {
  for (
    let e = error, depth = 0;
    e && typeof e === 'object' && depth < 5;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && DISK_FULL_CODES.has(code)) return true;
    if (typeof message === 'string' && DISK_FULL_TEXT.test(message)) return true;
  }
  return false;
}

/** The driver's own words (drizzle's wrapper says only "Failed query: …"). */
function innermostMessage(error: unknown): string {
  let message = String(error);
  for (
    let e = error, depth = 0;
    e && typeof e === 'object' && depth < 5;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    if (typeof (e as { message?: unknown }).message === 'string') message = (e as { message: string }).message;
  }
  return message;
}

/** Options for {@link DiskSpace}. */
export interface DiskSpaceOptions {
  clock: Clock;
  /** PGlite's data_dir: its filesystem's free space is measured. Unset on PostgreSQL. */
  dataDir?: string;
  /** How long a refused write keeps readiness down after the last one; default 60 s. */
  holdMs?: number;
  /** Less free space than this in `dataDir` is "full"; default 32 MB (two WAL segments). */
  minFreeBytes?: number;
}

const MB = 1024 * 1024;

/**
 * Readiness's view of the database's disk. A refused write keeps it "full" for `holdMs` after the last
 * one: while the disk stays full every turn writes and is refused again, and no single successful write
 * proves otherwise (an update that fits its page succeeds on a full disk).
 */
export class DiskSpace {
  readonly #o: DiskSpaceOptions;
  #refused: { at: number; message: string } | undefined;

  constructor(options: DiskSpaceOptions) {
    this.#o = options;
  }

  /**
   * Looks at a failed statement. Returns the driver's words when it is a refusal for lack of space that
   * begins an episode (to log once; never the statement or its parameters), else undefined.
   */
  saw(error: unknown): string | undefined {
    if (!isDiskFull(error)) return undefined;
    const first = !this.#recent();
    this.#refused = { at: this.#o.clock.now().getTime(), message: innermostMessage(error) };
    return first ? this.#refused.message : undefined;
  }

  /** Resolves when the database can write as far as is known; rejects saying why not. */
  async check(): Promise<void> {
    const problems: string[] = [];
    if (this.#o.dataDir) {
      const stats = await statfsNearest(this.#o.dataDir);
      const free = stats.bavail * stats.bsize;
      const min = this.#o.minFreeBytes ?? 32 * MB;
      if (free < min) {
        problems.push(
          `only ${Math.floor(free / MB)} MB free in ${this.#o.dataDir} (the database needs at least ` +
            `${Math.round(min / MB)} MB)`,
        );
      } else if (stats.files > 0 && stats.ffree === 0)
        problems.push(`no file can be created in ${this.#o.dataDir} (no inodes left)`);
    }
    const refused = this.#recent();
    if (refused) {
      const ago = Math.round((this.#o.clock.now().getTime() - refused.at) / 1000);
      problems.push(`a write was refused for lack of disk space ${ago} s ago (${refused.message})`);
    }
    if (problems.length > 0) throw new Error(problems.join('; '));
  }

  #recent(): { at: number; message: string } | undefined {
    const refused = this.#refused;
    return refused && this.#o.clock.now().getTime() - refused.at < (this.#o.holdMs ?? 60_000) ? refused : undefined;
  }
}

/** The filesystem `dir` is on, or would be on once made (a data_dir not created yet: its nearest parent). */
async function statfsNearest(dir: string): Promise<StatsFs> {
  try {
    return await statfs(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(dir) === dir) throw error;
    return statfsNearest(dirname(dir));
  }
}

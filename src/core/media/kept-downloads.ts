// Files people sent, kept once downloaded (table `media_files`, the bytes under data_dir/files/<sha256>):
// a turn taken up again after a crash — before its message reached the checkpoint — reads the same bytes
// here, and the platform is asked for a file once per chat. A copy gone (swept, another machine's disk) or
// no longer its bytes is downloaded again, never trusted.
import { eq, lt } from 'drizzle-orm';
import type { Clock } from '../clock.ts';
import { type Db, mediaFiles } from '../db/index.ts';
import { keepBytes, readKept } from './kept-files.ts';

export class KeptDownloads {
  constructor(
    private readonly db: Db,
    /** `data_dir/files`. */
    private readonly dir: string,
    private readonly clock: Clock,
  ) {}

  /** The bytes kept under `key`, when their copy is still there and still theirs. */
  async get(key: string): Promise<Uint8Array | undefined> {
    const [row] = await this.db.select({ sha256: mediaFiles.sha256 }).from(mediaFiles).where(eq(mediaFiles.key, key));
    return row ? readKept(this.dir, row.sha256) : undefined;
  }

  /** Keeps `bytes` under `key` (a copy written whole, then the row); the bytes read again name it now. */
  async keep(key: string, bytes: Uint8Array): Promise<void> {
    const sha256 = await keepBytes(this.dir, bytes, this.clock.now());
    await this.db
      .insert(mediaFiles)
      .values({ key, sha256 })
      .onConflictDoUpdate({ target: mediaFiles.key, set: { sha256, createdAt: this.clock.now() } });
  }

  /** Removes the rows kept before `before` (`media.retention`; the copies go by their age); how many went. */
  async prune(before: Date): Promise<number> {
    const gone = await this.db
      .delete(mediaFiles)
      .where(lt(mediaFiles.createdAt, before))
      .returning({ key: mediaFiles.key });
    return gone.length;
  }
}

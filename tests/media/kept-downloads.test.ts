// Files people sent, kept once downloaded (media_files + data_dir/files/<sha256>) on PGlite and PostgreSQL:
// a later run of the turn gets the same bytes back; a copy swept or changed on disk is not trusted (the
// file is downloaded again); keeping the same bytes again dates their copy anew, so the sweep counts from
// the last use; and the sweep removes the rows kept past media.retention.
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { KeptDownloads } from '../../src/core/media/index.ts';
import { describeEachBackend } from '../helpers/databases.ts';

const clock = { now: () => new Date() };
const photo = Buffer.from('\xff\xd8\xff\xe0 a photo, as Telegram served it');
const sha = createHash('sha256').update(photo).digest('hex');

describeEachBackend('KeptDownloads', (db) => {
  it('gives a later run the bytes kept, from the copy named by their digest', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kazma-files-'));
    const kept = new KeptDownloads(db().db, dir, clock);
    expect(await kept.get('k1')).toBeUndefined();
    await kept.keep('k1', photo);
    expect(await readdir(dir)).toEqual([sha]);
    expect(Buffer.from((await new KeptDownloads(db().db, dir, clock).get('k1'))!).equals(photo)).toBe(true);
  });

  it('does not trust a copy that is gone or no longer its bytes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kazma-files-'));
    const kept = new KeptDownloads(db().db, dir, clock);
    await kept.keep('k2', photo);
    await writeFile(join(dir, sha), 'other bytes');
    expect(await kept.get('k2')).toBeUndefined();
    await unlink(join(dir, sha));
    expect(await kept.get('k2')).toBeUndefined();
    await kept.keep('k2', photo); // downloaded again: kept again
    expect(Buffer.from((await kept.get('k2'))!).equals(photo)).toBe(true);
  });

  it('dates a copy anew when the same bytes are kept again', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kazma-files-'));
    const kept = new KeptDownloads(db().db, dir, clock);
    await kept.keep('k3', photo);
    const month = new Date(Date.now() - 31 * 24 * 3600_000);
    await utimes(join(dir, sha), month, month);
    await kept.keep('k4', photo); // the same photo, sent again
    expect((await stat(join(dir, sha))).mtime.getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it('removes the rows kept before the cut-off, and only those', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kazma-files-'));
    const kept = new KeptDownloads(db().db, dir, clock);
    await kept.keep('old', photo);
    expect(await kept.prune(new Date(Date.now() - 3_600_000))).toBe(0);
    expect(await kept.get('old')).toBeDefined();
    expect(await kept.prune(new Date(Date.now() + 60_000))).toBeGreaterThanOrEqual(1);
    expect(await kept.get('old')).toBeUndefined();
  });
});

// On a full disk the database still answers `select 1`, so a readiness probe that only pings says "ready"
// while every turn fails. /readyz must say the disk is full: on PGlite, whose data is under data_dir, from
// the free space there and from writes refused for lack of it; on PostgreSQL, whose disk is the server's,
// from writes refused with SQLSTATE 53100 (disk_full). The disks are real: a tmpfs the test fills until
// the kernel answers ENOSPC (PGlite's data dir on it; for PostgreSQL, a tablespace holding the database).
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/core/db/index.ts';
import { migrateDatabase } from '../../src/core/db/migrate.ts';
import { startAssembled, type Assembled } from '../helpers/assembled.ts';
import { seedPgliteDataDir, type FreshDatabase } from '../helpers/databases.ts';
import { FakeClock } from '../helpers/fake-clock.ts';
import { startPrivatePostgres } from '../helpers/private-postgres.ts';
import { STANDARD_STEPS } from '../helpers/pglite-template.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';
import { mountTinyDisk, type TinyDisk } from '../helpers/tiny-disk.ts';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const message = (text: string) => ({
  kind: 'message' as const,
  eventId: randomUUID(),
  platform: 'telegram',
  chat: 'telegram:7' as const,
  actor: { platform: 'telegram', id: '42' },
  text,
});

async function readyz(k: Assembled): Promise<{ status: number; down: string[]; message?: string }> {
  const response = await fetch(`http://127.0.0.1:${k.kazma.http.port}/readyz`);
  const body = (await response.json()) as { down: string[]; message?: string };
  return { status: response.status, down: body.down, ...(body.message && { message: body.message }) };
}

async function start(database: FreshDatabase, clock: FakeClock, dataDir?: string): Promise<Assembled> {
  const access = { operators: [{ name: 'maya', telegram: '42' }] };
  const k = await startAssembled({ ...(dataDir && { data_dir: dataDir }), access }, { database, clock });
  cleanups.push(() => k.close());
  k.kazma.core.attachSurface(new RecordingSurface('telegram'));
  return k;
}

/** Fills the disk, then shows /readyz saying so while turns fail, and ready again once space is back. */
async function fullDiskEpisode(k: Assembled, disk: TinyDisk, clock: FakeClock, whenFull: RegExp): Promise<void> {
  expect(await readyz(k)).toEqual({ status: 200, down: [] });
  expect(await k.kazma.core.pipeline.handle(message('hello'))).toBe('handled');

  disk.fill();
  // A message as long as Telegram allows, of text that does not compress: recording it needs new pages.
  // It cannot be recorded: the platform is told to deliver it again, and again.
  const long = randomBytes(3000).toString('base64').slice(0, 4000);
  await expect(k.kazma.core.pipeline.handle(message(long))).rejects.toThrow(/could not|No space left on device/);
  const full = await readyz(k);
  expect(full).toMatchObject({ status: 503, down: ['disk'] });
  expect(full.message).toMatch(whenFull);

  disk.free();
  // Space is back, but a write was refused for lack of it moments ago: not ready until a minute passes
  // without another (the next message is a write that would say so again).
  const after = await readyz(k);
  expect(after).toMatchObject({ status: 503, down: ['disk'] });
  expect(after.message).toMatch(
    /disk a write was refused for lack of disk space 0 s ago \(.*No space left on device.*\)/,
  );
  clock.advance(61_000);
  expect(await readyz(k)).toEqual({ status: 200, down: [] });
  expect(await k.kazma.core.pipeline.handle(message('and now?'))).toBe('handled');
}

describe('/readyz on a full disk', () => {
  it('PGlite: data_dir on a filesystem that fills up', async () => {
    const disk = await mountTinyDisk(96);
    cleanups.push(() => disk.unmount());
    const dataDir = join(disk.dir, 'data');
    await seedPgliteDataDir(dataDir);
    const opened = await openDatabase({ dataDir, upkeepIntervalMs: 0 });
    const clock = new FakeClock(new Date().toISOString());
    cleanups.push(() => opened.close());
    const k = await start({ ...opened, dispose: () => opened.close() }, clock, dataDir);
    // Full: the free space of data_dir's filesystem says so, and the refused write.
    await fullDiskEpisode(
      k,
      disk,
      clock,
      /^disk only 0 MB free in .*\/data \(the database needs at least 32 MB\); a write was refused for lack of disk space/,
    );
  });

  it('PostgreSQL: the database in a tablespace on a filesystem that fills up', async () => {
    const disk = await mountTinyDisk(32);
    cleanups.push(() => disk.unmount());
    const space = join(disk.dir, 'space');
    mkdirSync(space);
    await promisify(execFile)('chown', ['postgres:postgres', space]);
    // A server of its own: while the tablespace is full, its server's checkpoints fail, and so would another
    // test's CREATE or DROP DATABASE on a shared one.
    const server = await startPrivatePostgres();
    cleanups.push(() => server.stop());
    const name = `kazma_t_${randomBytes(6).toString('hex')}`;
    const admin = postgres(server.adminUrl, { max: 1, onnotice: () => {} });
    cleanups.push(() => admin.end());
    await admin.unsafe(`create tablespace ${name} location '${space}'`);
    cleanups.push(async () => void (await admin.unsafe(`drop tablespace if exists ${name}`)));
    await admin.unsafe(`create database ${name} tablespace ${name}`);
    cleanups.push(async () => void (await admin.unsafe(`drop database if exists ${name} with (force)`)));
    const url = new URL(server.adminUrl);
    url.pathname = `/${name}`;
    const opened = await openDatabase({ url: url.toString(), poolSize: 4 });
    cleanups.push(() => opened.close());
    await migrateDatabase(opened, STANDARD_STEPS);
    const clock = new FakeClock(new Date().toISOString());
    const k = await start({ ...opened, dispose: () => opened.close() }, clock);
    // The server's disk cannot be measured from here: the refused write is what says so.
    await fullDiskEpisode(
      k,
      disk,
      clock,
      /^disk a write was refused for lack of disk space 0 s ago \(could not extend file .*No space left on device\)/,
    );
  });
});

// The sent files' copies under data_dir/files: removed once older than the cut-off, the newer kept; a
// folder not made yet (nothing sent) is no error.
import { mkdtemp, readdir, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { pruneKeptFiles } from '../../src/core/media/index.ts';

it('removes the copies written before the cut-off and keeps the rest', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kazma-kept-'));
  await writeFile(join(dir, 'old'), 'sent last month');
  await writeFile(join(dir, 'new'), 'sent today');
  const month = new Date(Date.now() - 31 * 24 * 3600_000);
  await utimes(join(dir, 'old'), month, month);
  expect(await pruneKeptFiles(dir, new Date(Date.now() - 30 * 24 * 3600_000))).toBe(1);
  expect(await readdir(dir)).toEqual(['new']);
  expect(await pruneKeptFiles(join(dir, 'never-made'), new Date())).toBe(0);
});

// `<data_dir>/skill-cache` does not grow forever: at start Kazma removes the copies no skill folder names
// any more (an old version, a removed skill) once unused for a day, and the leftovers of a crash — never
// the copy a loaded skill runs from, and never one another process marked in use within the day.
import { appendFileSync, mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.ts';
import { parseConfig } from '../../src/core/config/index.ts';
import { createLogger } from '../../src/core/log/index.ts';
import { markInUse, PRUNE_UNUSED_MS, pruneSkillCache } from '../../src/core/skills/cache.ts';
import { createSkills, skillCache } from '../../src/core/skills/module.ts';
import { ToolRegistry } from '../../src/core/tools/registry.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { SECRET, sign, skillsRoot, writeSkill } from './skill-folders.ts';

const root = skillsRoot();
afterAll(() => rmSync(root, { recursive: true, force: true }));

const DAY = 24 * 60 * 60 * 1000;
const sum = (c: string) => c.repeat(64);
/** Sets a folder's mtime `ms` before now. */
const age = (dir: string, ms: number) => utimesSync(dir, new Date(Date.now() - ms), new Date(Date.now() - ms));

describe('pruneSkillCache', () => {
  it('removes unnamed copies unused for a day and old crash leftovers; keeps the rest', () => {
    const cache = join(root, 'unit');
    const dir = (name: string, unusedFor: number) => {
      mkdirSync(join(cache, name, 'lib'), { recursive: true });
      writeFileSync(join(cache, name, 'lib', 'x.mjs'), 'export {}');
      age(join(cache, name), unusedFor);
      return name;
    };
    const named = dir(sum('a'), 30 * DAY); // a skill folder names it: kept however old
    const oldVersion = dir(sum('b'), 2 * DAY);
    const usedElsewhere = dir(sum('c'), 2 * DAY);
    const recent = dir(sum('d'), 60_000); // written a minute ago, by another process perhaps
    const crashed = dir(`${sum('e')}.0123456789ab.tmp`, 2 * DAY);
    const writing = dir(`${sum('f')}.0123456789ab.tmp`, 1000); // another process is writing it now
    const foreign = dir('notes', 30 * DAY);
    // Another Kazma still runs from usedElsewhere: it marks it every hour.
    markInUse(cache, [usedElsewhere], systemClock);

    expect(pruneSkillCache(cache, new Set([named]), systemClock).sort()).toEqual([oldVersion, crashed].sort());
    expect(readdirSync(cache).sort()).toEqual([named, usedElsewhere, recent, writing, foreign].sort());
    // A day later, with nothing marking them, the unnamed ones go too; the named one and the stranger stay.
    const dayLater = { now: () => new Date(Date.now() + PRUNE_UNUSED_MS + 1000) };
    expect(pruneSkillCache(cache, new Set([named]), dayLater).sort()).toEqual([usedElsewhere, recent, writing].sort());
    expect(readdirSync(cache).sort()).toEqual([named, foreign].sort());
  });

  it('a cache that does not exist yet is nothing to prune', () => {
    expect(pruneSkillCache(join(root, 'none'), new Set(), systemClock)).toEqual([]);
  });
});

describe('at start', () => {
  it("removes an old version's copy, keeps the one the loaded skill runs from, and the skill still runs", async () => {
    const skills = join(root, 'skills');
    const skill = writeSkill(skills, 'greeter');
    sign(skill);
    const loaded = parseConfig(JSON.stringify({ data_dir: join(root, 'data'), skills: { paths: [skills] } }), {
      env: { KAZMA_SECRET: SECRET },
      baseDir: root,
    });
    const cache = skillCache(loaded);
    const logger = createLogger({ level: 'silent', pretty: false });
    const database = await freshDatabase('pglite');
    const start = async () => {
      const registry = new ToolRegistry();
      const started = await createSkills({ loaded, db: database.db, registry, logger });
      started.stop();
      return registry;
    };
    try {
      await start();
      const [v1] = readdirSync(cache);
      expect(v1).toMatch(/^[0-9a-f]{64}$/);

      // A new version, while v1's copy has been unused for two days: v2's copy is written, v1's removed.
      appendFileSync(join(skill, 'lib', 'words.mjs'), '// v2\n');
      sign(skill);
      age(join(cache, v1!), 2 * DAY);
      await start();
      const [v2] = readdirSync(cache);
      expect(v2).toMatch(/^[0-9a-f]{64}$/);
      expect(v2).not.toBe(v1);

      // Again: v2, named by the skill and loaded from, stays however long ago its folder was touched.
      age(join(cache, v2!), 30 * DAY);
      const registry = await start();
      expect(readdirSync(cache)).toEqual([v2]);
      const result = await registry.execute('greeter_hello', { who: 'maya' }, {} as never);
      expect(result).toMatchObject({ ok: true, output: expect.stringContaining('greeter_hello to maya') });
    } finally {
      await database.dispose();
    }
  });
});

// Facts over time and by source, on both databases: a note holds when it became true apart from when it
// was written, and one written later about an older time never overwrites a newer one; a weaker source
// never overwrites a stronger one, and the conflict is kept and shown; forgetting is journalled, so a
// database restored from a dump taken before the forget, or the note imported again, stays forgotten.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq, getTableColumns } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/core/db/index.ts';
import { MemoryStore, recalledNotes } from '../../src/core/memory/index.ts';
import { ForgetJournal } from '../../src/core/memory/journal.ts';
import { BACKENDS, freshDatabase, type FreshDatabase } from '../helpers/databases.ts';

const { memories } = schema;

for (const backend of BACKENDS) {
  describe(`facts over time, with provenance [${backend}]`, () => {
    let database: FreshDatabase;
    let dir: string;
    let at = new Date('2026-12-01T09:00:00Z').getTime();
    const clock = { now: () => new Date((at += 60_000)) };
    const journal = () => new ForgetJournal(join(dir, 'memory-forgotten.jsonl'));
    const store = () => new MemoryStore({ db: database.db, clock, journal: journal() });
    const current = async (owner: string) => (await store().recent([owner], 50)).map((n) => n.text);

    beforeAll(async () => {
      database = await freshDatabase(backend);
      dir = await mkdtemp(join(tmpdir(), 'kazma-forget-'));
    });
    afterAll(async () => {
      await database.dispose();
      await rm(dir, { recursive: true, force: true });
    });

    it('a later-written statement about an older time is history; a newer one replaces the current', async () => {
      const owner = 'person:time';
      const berlin = await store().remember({
        owner,
        text: 'I live in Berlin',
        subject: 'home',
        source: 'stated',
        validFrom: new Date('2024-03-01T00:00:00Z'),
      });
      const paris = await store().remember({
        owner,
        text: 'I lived in Paris',
        subject: 'home',
        source: 'stated',
        validFrom: new Date('2020-01-01T00:00:00Z'),
      });
      expect(paris).toMatchObject({ outcome: 'older', newer: berlin.id, superseded: [] });
      expect(await current(owner)).toEqual(['I live in Berlin']);
      const kuwait = await store().remember({
        owner,
        text: 'I live in Kuwait now',
        subject: 'home',
        source: 'stated',
        validFrom: new Date('2026-06-01T00:00:00Z'),
      });
      expect(kuwait).toMatchObject({ outcome: 'stored', superseded: [berlin.id] });
      expect(await current(owner)).toEqual(['I live in Kuwait now']);
      const [row] = await database.db.select().from(memories).where(eq(memories.id, paris.id));
      expect([row?.supersededBy, row?.validFrom]).toEqual([berlin.id, new Date('2020-01-01T00:00:00Z')]);
    });

    it('a weaker source never overwrites a stronger one: the conflict is kept and shown with both', async () => {
      const owner = 'person:ladder';
      const stated = await store().remember({
        owner,
        text: 'My exam is on 14 January',
        subject: 'exam',
        source: 'stated',
      });
      const inferred = await store().remember({
        owner,
        text: 'The exam seems to be on 15 January',
        subject: 'exam',
        source: 'inferred',
      });
      const page = await store().remember({
        owner,
        text: 'The exam timetable says 20 January',
        subject: 'exam',
        source: 'tool',
      });
      expect(inferred).toMatchObject({ outcome: 'conflict', conflictsWith: stated.id });
      expect(page).toMatchObject({ outcome: 'conflict', conflictsWith: stated.id });
      const notes = await store().recent([owner], 10);
      expect(notes.map((n) => [n.text, n.conflictsWith])).toEqual([
        ['The exam timetable says 20 January', stated.id],
        ['The exam seems to be on 15 January', stated.id],
        ['My exam is on 14 January', null],
      ]);
      expect(recalledNotes(notes, 'UTC')).toContain(
        `[${page.id}] 2026-12-01, from a tool or page (disagrees with ${stated.id}, a stronger source): The exam timetable`,
      );
      // The person says otherwise: that replaces every note about the exam.
      const moved = await store().remember({
        owner,
        text: 'My exam moved to 16 January',
        subject: 'exam',
        source: 'stated',
      });
      expect(moved.superseded.sort()).toEqual([stated.id, inferred.id, page.id].sort());
      expect(await current(owner)).toEqual(['My exam moved to 16 January']);
    });

    it('forget survives a restored dump: dump, forget, restore the dump, run the journal again', async () => {
      const owner = 'person:restore';
      const note = await store().remember({ owner, text: 'I live at 5 Palm Street', source: 'stated' });
      await store().remember({ owner, text: 'I like green tea', source: 'stated' });
      const { search: _generated, ...columns } = getTableColumns(memories);
      void _generated;
      const dump = await database.db.select(columns).from(memories).where(eq(memories.owner, owner));

      expect(await store().forget({ owners: [owner], ids: [note.id] })).toBe(1);
      expect(await current(owner)).toEqual(['I like green tea']);
      const journalled = await readFile(journal().path, 'utf8');
      expect(journalled).toContain(note.id);
      expect(journalled).not.toContain('Palm'); // ids and hashes, never the words

      // The backup is restored: the note is back...
      await database.db.delete(memories).where(eq(memories.owner, owner));
      await database.db.insert(memories).values(dump);
      expect((await current(owner)).sort()).toEqual(['I like green tea', 'I live at 5 Palm Street']);
      // ...until the journal runs again (at start).
      expect(await store().replayForgets()).toBe(1);
      expect(await current(owner)).toEqual(['I like green tea']);

      // Imported again under another id: the same words of the same owner are forgotten too.
      await database.db
        .insert(memories)
        .values({ ...dump.find((r) => r.id === note.id)!, id: 'mem_reimported', seq: undefined });
      expect(await current(owner)).toContain('I live at 5 Palm Street');
      expect(await store().replayForgets()).toBe(1);
      expect(await current(owner)).toEqual(['I like green tea']);
      // And the model cannot bring the words back on its own.
      expect(await store().remember({ owner, text: 'I live at 5 Palm Street', source: 'inferred' })).toMatchObject({
        outcome: 'forgotten',
      });
    });
  });
}

import { sql } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { schema } from '../../src/core/db/index.ts';
import { MemoryStore } from '../../src/core/memory/index.ts';
import { formsIn, textHash } from '../../src/core/memory/words.ts';
import { describeEachBackend } from '../helpers/databases.ts';

const clock = { now: () => new Date('2026-12-05T10:00:00Z') };
const unit = (...values: number[]) => {
  const norm = Math.hypot(...values);
  return values.map((v) => v / norm);
};

describeEachBackend('memory store', (db, backend) => {
  const store = () => new MemoryStore({ db: db().db, clock });

  it('finds a note by full-text words in Arabic and English, for its owner only', async () => {
    await store().remember({ owner: 'person:maya', text: 'My exam is on 14 January', source: 'stated' });
    await store().remember({ owner: 'person:maya', text: 'امتحاني في الرابع عشر من يناير', source: 'stated' });
    await store().remember({ owner: 'person:omar', text: 'My exam is in March', source: 'stated' });

    const english = await store().candidates({ owners: ['person:maya'], query: 'when is the exam?' });
    expect(english.map((c) => c.text)).toEqual(['My exam is on 14 January']);
    const arabic = await store().candidates({ owners: ['person:maya'], query: 'متى امتحاني؟' });
    expect(arabic.map((c) => c.text)).toEqual(['امتحاني في الرابع عشر من يناير']);
    expect(await store().candidates({ owners: ['person:maya'], query: 'weather tomorrow' })).toEqual([]);
  });

  it('finds a note by another form of its words: article, pronoun ending, plural, Arabic-Indic digits', async () => {
    const owner = 'person:forms';
    await store().remember({ owner, text: 'سيارتي تويوتا زرقاء', source: 'stated' });
    await store().remember({ owner, text: 'مقاس حذائي ٤٣', source: 'stated' });
    await store().remember({ owner, text: 'I take piano lessons on Tuesdays', source: 'stated' });

    const find = async (query: string) => (await store().candidates({ owners: [owner], query })).map((c) => c.text);
    expect(await find('ما لون السيارة؟')).toEqual(['سيارتي تويوتا زرقاء']);
    expect(await find('هل مقاسي 43؟')).toEqual(['مقاس حذائي ٤٣']);
    expect(await find('when is my piano lesson?')).toEqual(['I take piano lessons on Tuesdays']);
  });

  it("finds a note by its rare word however many newer notes share the question's common word", async () => {
    const owner = 'person:common';
    await store().remember({ owner, text: 'Dr Karim works at the Salmiya clinic', source: 'stated' });
    // More notes hold "meeting" than the full-text half reads of one word, and all are newer.
    const meetings = Array.from({ length: 150 }, (_, i) => {
      const text = `The weekly meeting ${i} is on Monday`;
      return {
        id: `mem_meeting_${i}`,
        owner,
        text,
        textHash: textHash(text),
        terms: sql`to_tsvector('simple', ${[...formsIn(text)].join(' ')})`,
        source: 'stated' as const,
      };
    });
    await db().db.insert(schema.memories).values(meetings);

    const find = async (query: string) => (await store().candidates({ owners: [owner], query })).map((c) => c.text);
    const clinic = await find('Is the meeting at the clinic?');
    expect(clinic[0]).toBe('Dr Karim works at the Salmiya clinic');
    expect(clinic).toHaveLength(24);
    // A common word alone still brings its newest notes.
    expect((await find('when is the meeting?')).slice(0, 2)).toEqual([
      'The weekly meeting 149 is on Monday',
      'The weekly meeting 148 is on Monday',
    ]);
  });

  it('compares with pgvector where the database has it (PGlite loads it), else exactly', async () => {
    const available = await db().db.execute(sql`select 1 from pg_available_extensions where name = 'vector'`);
    const has = (Array.isArray(available) ? available : (available as { rows: unknown[] }).rows).length > 0;
    expect(await store().similarityKind()).toBe(has ? 'pgvector' : 'exact');
    if (backend === 'pglite') expect(has).toBe(true);
  });

  it("finds an owner's notes by similarity when many nearer notes are someone else's", async () => {
    const model = 'fake-embed';
    const near = unit(1, 0.01, 0);
    const crowd = Array.from({ length: 300 }, (_, i) => ({
      id: `mem_crowd_${i}`,
      owner: 'person:crowd',
      text: `crowd ${i}`,
      textHash: `crowd-${i}`,
      source: 'stated' as const,
      embedding: sql`${`{${unit(1, i / 1000, 0.001).join(',')}}`}::real[]`,
      embeddingModel: model,
    }));
    await db().db.insert(schema.memories).values(crowd);
    await store().remember({
      owner: 'person:few',
      text: 'far one',
      source: 'stated',
      embedding: { model, vector: unit(0, 1, 0) },
    });
    await store().remember({
      owner: 'person:few',
      text: 'far two',
      source: 'stated',
      embedding: { model, vector: unit(0, 0, 1) },
    });
    await db().db.execute(sql`analyze memories`);
    // The index over notes stored before it (a first start after an upgrade) is said before it is built, once.
    if (backend === 'pglite') await db().db.execute(sql`drop index memories_embedding_hnsw_3`);
    const building: Array<{ length: number; notes: number }> = [];
    await store().prepareSearch((index) => building.push(index));
    await store().prepareSearch((index) => building.push(index));
    expect(building).toEqual(backend === 'pglite' ? [{ length: 3, notes: 302 }] : []);
    // For an owner this small the planner reads the owner's rows and sorts them (exact); on PGlite (one
    // session) it is made to walk the HNSW index instead, which passes the crowd's 300 nearer notes first.
    if (backend === 'pglite') await db().db.execute(sql`set enable_sort = off`);
    try {
      const embedding = { model, vector: near };
      const found = await store().candidates({ owners: ['person:few'], query: 'zzz', embedding });
      expect(found.map((c) => c.text).sort()).toEqual(['far one', 'far two']);
    } finally {
      if (backend === 'pglite') await db().db.execute(sql`reset enable_sort`);
    }
  });

  it('ranks by cosine similarity over every embedded note of the model', async () => {
    const owner = 'person:sim';
    const model = 'fake-embed';
    await store().remember({ owner, text: 'alpha', source: 'stated', embedding: { model, vector: unit(1, 0, 0) } });
    await store().remember({ owner, text: 'beta', source: 'stated', embedding: { model, vector: unit(1, 1, 0) } });
    await store().remember({ owner, text: 'gamma', source: 'stated', embedding: { model, vector: unit(0, 0, 1) } });
    // Another model's vector is never compared with this one's.
    await store().remember({
      owner,
      text: 'delta',
      source: 'stated',
      embedding: { model: 'other', vector: [1, 0, 0] },
    });

    const found = await store().candidates({ owners: [owner], query: 'zzz', embedding: { model, vector: [1, 0, 0] } });
    expect(found.map((c) => c.text)).toEqual(['alpha', 'beta', 'gamma']);
    expect(found[0]!.similarity).toBeCloseTo(1, 5);
    expect(found[1]!.similarity).toBeCloseTo(Math.SQRT1_2, 5);
    expect(found[2]!.similarity).toBeCloseTo(0, 5);
  });

  it('never lets a weaker source overwrite what the person stated; a stronger one supersedes', async () => {
    const owner = 'person:prov';
    const stated = await store().remember({
      owner,
      text: 'Exam on 14 January',
      subject: 'exam date',
      source: 'stated',
    });
    const inferred = await store().remember({
      owner,
      text: 'Exam on 20 January',
      subject: 'Exam Date',
      source: 'inferred',
    });
    expect(inferred.outcome).toBe('conflict');
    expect(inferred.conflictsWith).toBe(stated.id);
    const both = await store().candidates({ owners: [owner], query: 'exam' });
    expect(both.map((c) => [c.text, c.source]).sort()).toEqual([
      ['Exam on 14 January', 'stated'],
      ['Exam on 20 January', 'inferred'],
    ]);

    const restated = await store().remember({
      owner,
      text: 'Exam moved to 21 January',
      subject: 'exam date',
      source: 'stated',
    });
    expect(restated.outcome).toBe('stored');
    expect(restated.superseded.sort()).toEqual([stated.id, inferred.id].sort());
    const now = await store().candidates({ owners: [owner], query: 'exam' });
    expect(now.map((c) => c.text)).toEqual(['Exam moved to 21 January']);
  });

  it('forgets as a tombstone that stays forgotten: the words are gone and not inferred back', async () => {
    const owner = 'person:forget';
    const note = await store().remember({ owner, text: 'I live at 5 Palm Street', source: 'stated' });
    expect(await store().forget({ owners: ['person:someone-else'], ids: [note.id] })).toBe(0);
    expect(await store().forget({ owners: [owner], ids: [note.id] })).toBe(1);
    expect(await store().candidates({ owners: [owner], query: 'palm street' })).toEqual([]);
    type Row = { text: string; terms: string | null; embedding: unknown };
    const [row] = await db()
      .db.execute<Row>(sql`select text, terms::text as terms, embedding from memories where id = ${note.id}`)
      .then((r) => (Array.isArray(r) ? r : (r as unknown as { rows: Row[] }).rows));
    // Nothing of its words is left: not the text, nor its word forms, nor its vector.
    expect(row).toEqual({ text: '', terms: null, embedding: null });

    const again = await store().remember({ owner, text: 'i live at 5 palm street.', source: 'inferred' });
    expect(again.outcome).toBe('forgotten');
    expect(await store().candidates({ owners: [owner], query: 'palm street' })).toEqual([]);
    // The person saying it again is a new statement.
    expect((await store().remember({ owner, text: 'I live at 5 Palm Street', source: 'stated' })).outcome).toBe(
      'stored',
    );
  });

  it('lists recent notes of an owner, newest first', async () => {
    const owner = 'person:list';
    await store().remember({ owner, text: 'first', source: 'stated' });
    await store().remember({ owner, text: 'second', source: 'inferred' });
    expect((await store().recent([owner], 10)).map((n) => n.text)).toEqual(['second', 'first']);
  });
});

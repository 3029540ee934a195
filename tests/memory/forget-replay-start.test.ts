// The forget journal is applied at start, through Kazma assembled as `kazma start` assembles it: a note
// the journal says was forgotten, back in the database (a restored backup), is forgotten again before
// anything else runs.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/core/memory/index.ts';
import { ForgetJournal } from '../../src/core/memory/journal.ts';
import { textHash } from '../../src/core/memory/words.ts';
import { kazmasOnOneDatabase } from '../helpers/assembled.ts';

const kazmas = kazmasOnOneDatabase();
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kazma-replay-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('the forget journal at start', () => {
  it('forgets again what a restored database brought back', async () => {
    const path = join(dir, 'forgotten.jsonl');
    const config = { memory: { forget_journal: path } };
    const first = await kazmas.start(config);
    const store = new MemoryStore({ db: first.database.db, clock: { now: () => new Date() } });
    const note = await store.remember({ owner: 'person:maya', text: 'My locker code is 1234', source: 'stated' });
    await store.remember({ owner: 'person:maya', text: 'I like green tea', source: 'stated' });
    // As if this database was restored from a backup taken before the note was forgotten.
    const [row] = await store.recent(['person:maya'], 5).then((notes) => notes.filter((n) => n.id === note.id));
    expect(row?.text).toBe('My locker code is 1234');
    const hash = textHash('My locker code is 1234');
    await new ForgetJournal(path).append([{ id: note.id, owner: 'person:maya', hash, at: new Date().toISOString() }]);
    await kazmas.stop(first);

    const second = await kazmas.start(config);
    const after = new MemoryStore({ db: second.database.db, clock: { now: () => new Date() } });
    expect((await after.recent(['person:maya'], 5)).map((n) => n.text)).toEqual(['I like green tea']);
  });
});

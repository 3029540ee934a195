// Which thread a chat is on: `/new` moves it to the next generation, and a solo store (the embedded
// database, one process) remembers generations so a turn need not read them.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ThreadStore } from '../../src/core/turns/threads.ts';
import type { ChatRef } from '../../src/core/surface/index.ts';
import { describeEachBackend, freshDatabase, type FreshDatabase } from '../helpers/databases.ts';

describeEachBackend('the chat’s thread', (db) => {
  it('starts at generation 0 and /new moves it on, for a shared and for a solo store alike', async () => {
    for (const solo of [false, true]) {
      const store = new ThreadStore(db().db, { solo });
      const chat = `telegram:${solo ? 1 : 2}` as ChatRef;
      expect(await store.current(chat)).toBe(`${chat}#0`);
      expect(await store.next(chat)).toBe(`${chat}#1`);
      expect(await store.current(chat)).toBe(`${chat}#1`);
      expect(await store.next(chat)).toBe(`${chat}#2`);
      expect(await store.current(chat)).toBe(`${chat}#2`);
    }
  });
});

let database: FreshDatabase;
beforeAll(async () => {
  database = await freshDatabase('pglite');
});
afterAll(() => database.dispose());

it('a solo store remembers: the second read of a chat’s thread sends no statement', async () => {
  const store = new ThreadStore(database.db, { solo: true });
  const chat = 'discord:D1' as ChatRef;
  await store.current(chat);
  // Behind the store's back (nothing else writes chat_threads in a solo process): the store does not look.
  await database.pglite!.query(`insert into chat_threads (chat, generation) values ('${chat}', 7)`);
  expect(await store.current(chat)).toBe(`${chat}#0`);
  expect(await new ThreadStore(database.db).current(chat)).toBe(`${chat}#7`);
});

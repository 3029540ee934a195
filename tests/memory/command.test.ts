// /memory through Kazma assembled as `kazma start` assembles it: the person sees, searches and forgets
// only their own notes (and the chat's shared ones); someone else sees none of them and cannot forget one.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/core/memory/index.ts';
import type { Actor } from '../../src/core/surface/index.ts';
import { startAssembled, type Assembled } from '../helpers/assembled.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';

const MAYA: Actor = { platform: 'telegram', id: '42' };
const OTHER: Actor = { platform: 'telegram', id: '77' };

let k: Assembled;
let surface: RecordingSurface;
let store: MemoryStore;
const ids: Record<string, string> = {};
beforeAll(async () => {
  k = await startAssembled({
    access: { operators: [{ name: 'maya', telegram: '42' }], users: ['telegram:77'] },
    time: { zone: 'Asia/Kuwait' },
  });
  surface = new RecordingSurface('telegram');
  k.kazma.core.attachSurface(surface);
  store = new MemoryStore({ db: k.database.db, clock: { now: () => new Date('2026-12-01T22:30:00Z') } });
  for (const [key, owner, text] of [
    ['exam', 'person:maya', 'My exam is on 14 January'],
    ['tea', 'person:maya', 'I like green tea 🍵'],
    ['arabic', 'person:maya', 'أختي اسمها سارة'],
    ['theirs', 'user:telegram:77', 'My exam is on 3 March'],
  ] as const)
    ids[key] = (await store.remember({ owner, text, source: 'stated' })).id;
});
afterAll(() => k.close());

async function say(actor: Actor, text: string): Promise<string> {
  const before = surface.sent.length;
  await k.kazma.core.pipeline.handle({
    kind: 'message',
    eventId: randomUUID(),
    platform: 'telegram',
    chat: `telegram:${actor.id}`,
    actor,
    text,
  });
  await k.settled();
  return surface.sent.slice(before).at(-1)?.text ?? '';
}

describe('/memory', () => {
  it('lists the person’s own notes, newest first, with ids and the day in time.zone', async () => {
    const reply = await say(MAYA, '/memory');
    expect(reply.split('\n')).toEqual([
      'What I remember about you, newest first:',
      `${ids.arabic} — 2026-12-02 — أختي اسمها سارة`,
      `${ids.tea} — 2026-12-02 — I like green tea 🍵`,
      `${ids.exam} — 2026-12-02 — My exam is on 14 January`,
      'Search with /memory search <words>; forget one with /memory forget <id>.',
    ]);
    expect(await say(OTHER, '/memory')).not.toContain('14 January');
  });

  it('searches by words, in Arabic too, and finds nothing of someone else’s', async () => {
    expect(await say(MAYA, '/memory search exam')).toBe(
      `Remembered, best match first:\n${ids.exam} — 2026-12-02 — My exam is on 14 January`,
    );
    expect(await say(MAYA, '/memory search سارة')).toContain(ids.arabic);
    expect(await say(OTHER, '/memory search exam')).toBe(
      `Remembered, best match first:\n${ids.theirs} — 2026-12-02 — My exam is on 3 March`,
    );
    expect(await say(MAYA, '/memory search weather')).toBe('Nothing I remember matches "weather".');
  });

  it('forgets the person’s own note and nobody else’s', async () => {
    expect(await say(OTHER, `/memory forget ${ids.tea}`)).toBe(
      `There is no note ${ids.tea} of yours to forget (see /memory).`,
    );
    expect(await say(MAYA, `/memory forget ${ids.tea}`)).toBe(
      `Forgot ${ids.tea}: its words are erased, and it stays forgotten.`,
    );
    expect(await say(MAYA, '/memory')).not.toContain('green tea');
    expect(await say(MAYA, `/memory forget ${ids.tea}`)).toBe(
      `There is no note ${ids.tea} of yours to forget (see /memory).`,
    );
    expect(await say(MAYA, '/memory forget')).toMatch(/^Usage: \/memory forget <id>/);
  });
});

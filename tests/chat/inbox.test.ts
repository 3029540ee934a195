// The inbox's statements on both backends: record is the dedupe guard, claim is a compare-and-set with
// one winner, a lapsed lease is taken over, a process never "recovers" its own live rows, and pruning
// removes only finished rows past the retention.
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { Inbox } from '../../src/core/chat/inbox/inbox.ts';
import type { InboundEvent } from '../../src/core/surface/types.ts';
import { inbox as inboxTable } from '../../src/core/db/schema/chat.ts';
import { describeEachBackend } from '../helpers/databases.ts';

const event = (eventId = randomUUID()): InboundEvent => ({
  kind: 'message',
  eventId,
  platform: 'telegram',
  chat: 'telegram:42',
  actor: { platform: 'telegram', id: '42' },
  text: 'hi',
});
const key = (e: InboundEvent) => ({ platform: e.platform, eventId: e.eventId });

describeEachBackend('inbox', (db) => {
  it('a chat’s rows are listed in the order they were recorded, whatever their received_at says', async () => {
    // PGlite's clock ticks in milliseconds, so rows recorded in one tick tie on received_at, and their
    // order fell to the event ids; on PostgreSQL now() is when a transaction began. Either way the
    // instant can disagree with the order of recording: here the later row's instant is the earlier.
    const inbox = new Inbox({ db: db().db, owner: 'a' });
    const chat = `telegram:${randomUUID()}`;
    const recorded = ['b-second-is-first', 'a-then-this'].map(
      (id) => ({ ...event(`${id}-${randomUUID()}`), chat }) as InboundEvent,
    );
    for (const e of recorded) await inbox.record(e, 'received');
    await db().db.execute(
      sql`update inbox set received_at = now() - interval '1 second' where event_id = ${recorded[1]!.eventId}`,
    );
    expect((await inbox.unfinishedOf(chat)).map((row) => row.eventId)).toEqual(recorded.map((e) => e.eventId));
  });

  it('records an event once; a redelivery is told apart', async () => {
    const inbox = new Inbox({ db: db().db, owner: 'a' });
    const e = event();
    const results = await Promise.all([
      inbox.record(e, 'received'),
      inbox.record(e, 'received'),
      inbox.record(e, 'received'),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('claim: one winner among racing claims, the attempt counted', async () => {
    const a = new Inbox({ db: db().db, owner: 'a' });
    const e = event();
    await a.record(e, 'received');
    const claims = await Promise.all([a.claim(key(e)), a.claim(key(e)), a.claim(key(e))]);
    const won = claims.filter((row) => row !== undefined);
    expect(won).toHaveLength(1);
    expect(won[0]).toMatchObject({ state: 'running', owner: 'a', attempts: 1 });
  });

  it('another process may take a row only once its lease has lapsed', async () => {
    const a = new Inbox({ db: db().db, owner: `a-${randomUUID()}` });
    const b = new Inbox({ db: db().db, owner: `b-${randomUUID()}` });
    const e = event();
    await a.record(e, 'received');
    await a.claim(key(e));
    expect(await b.claim(key(e))).toBeUndefined(); // not b's, and a is alive
    expect(await b.claim(key(e), { staleBefore: new Date(Date.now() - 60_000) })).toBeUndefined(); // a beat recently
    // A process lists its own unfinished rows whatever their age (the pipeline skips those it works on).
    expect((await a.unfinished(new Date(0))).map((r) => r.eventId)).toContain(e.eventId);
    expect((await b.unfinished(new Date(0))).map((r) => r.eventId)).not.toContain(e.eventId);
    expect((await b.unfinished(new Date(Date.now() + 1000))).map((r) => r.eventId)).toContain(e.eventId);
    const taken = await b.claim(key(e), { staleBefore: new Date(Date.now() + 1000) });
    expect(taken).toMatchObject({ owner: b.owner, attempts: 2 });
    expect(await a.finish(key(e), 'done')).toBe(false); // a lost it: only the owner ends a row
    expect(await b.finish(key(e), 'done')).toBe(true);
  });

  it('heartbeat keeps every row a process holds, queued or running, from looking abandoned', async () => {
    const a = new Inbox({ db: db().db, owner: `a-${randomUUID()}` });
    const queued = event();
    const running = event();
    await a.record(queued, 'received');
    await a.record(running, 'received');
    await a.claim(key(running));
    await db()
      .db.update(inboxTable)
      .set({ updatedAt: sql`now() - interval '1 hour'` })
      .where(sql`${inboxTable.owner} = ${a.owner}`);
    const b = new Inbox({ db: db().db, owner: 'b' });
    const before = (await b.unfinished(new Date(Date.now() - 60_000))).map((r) => r.eventId);
    expect(before).toEqual(expect.arrayContaining([queued.eventId, running.eventId]));
    await a.heartbeat();
    const after = (await b.unfinished(new Date(Date.now() - 60_000))).map((r) => r.eventId);
    expect(after).not.toContain(queued.eventId);
    expect(after).not.toContain(running.eventId);
  });

  it('prune removes finished and refused rows past the retention, and keeps everything unfinished', async () => {
    const a = new Inbox({ db: db().db, owner: `a-${randomUUID()}` });
    const [done, refused, waiting, fresh] = [event(), event(), event(), event()];
    await a.record(done, 'received');
    await a.claim(key(done));
    await a.finish(key(done), 'done');
    await a.record(refused, 'refused');
    await a.record(waiting, 'received');
    await db()
      .db.update(inboxTable)
      .set({ updatedAt: sql`now() - interval '10 days'` })
      .where(sql`${inboxTable.owner} = ${a.owner}`);
    await a.record(fresh, 'received');
    await a.claim(key(fresh));
    await a.finish(key(fresh), 'done');
    await a.prune(new Date(Date.now() - 7 * 86_400_000));
    const left = (
      await db().db.select({ id: inboxTable.eventId }).from(inboxTable).where(sql`${inboxTable.owner} = ${a.owner}`)
    ).map((r) => r.id);
    expect(left.sort()).toEqual([waiting.eventId, fresh.eventId].sort());
    // A redelivery of a pruned event would be taken again, which is why the retention outlasts any redelivery.
    expect(await a.record(done, 'received')).toBe(true);
  });
});

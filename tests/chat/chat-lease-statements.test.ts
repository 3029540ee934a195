// A chat's lease with its inbox listing folded in (chat-lease-statements.ts): taking the lease lists the
// chat's unfinished rows in the same statement, whoever holds it; the last listing lets the lease go
// only when no row is left, and only the holder's; a renewal extends a held lease and never takes back
// one that was let go — the old renewal (an upsert) did, keeping other processes off the chat until it
// expired.
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { ThreadLeases } from '../../src/core/turns/thread-lease.ts';
import { ChatLeaseStatements } from '../../src/core/turns/chat-lease-statements.ts';
import { Inbox } from '../../src/core/chat/inbox/inbox.ts';
import { describeEachBackend } from '../helpers/databases.ts';

describeEachBackend('a chat’s lease and listing in one statement', (db) => {
  const TTL = 60_000;
  const setup = () => {
    const chat = `telegram:${randomUUID()}`;
    const key = `inbox:${chat}`;
    const statements = new ChatLeaseStatements({
      db: db().db,
      leases: new ThreadLeases({ db: db().db, owner: 'p', ttlMs: TTL }),
      ttlMs: TTL,
    });
    const inbox = new Inbox({ db: db().db, owner: 'p1' });
    const record = async () => {
      const eventId = randomUUID();
      await inbox.record(
        {
          kind: 'message',
          eventId,
          platform: 'telegram',
          chat: chat as never,
          actor: { platform: 'telegram', id: '1' },
          text: eventId,
        },
        'received',
      );
      return eventId;
    };
    return { chat, key, statements, inbox, record };
  };

  it('taking the lease lists the chat’s unfinished rows in arrival order, and so does failing to', async () => {
    const { chat, key, statements, record } = setup();
    const first = await record();
    const second = await record();
    const mine = await statements.acquireListing(key, 'p1/a', chat);
    expect(mine.held).toBe(true);
    expect(mine.rows.map((row) => row.eventId)).toEqual([first, second]);
    const theirs = await statements.acquireListing(key, 'p2/b', chat);
    expect(theirs.held).toBe(false);
    expect(theirs.rows.map((row) => row.eventId)).toEqual([first, second]);
    expect((await statements.acquireListing(key, 'p1/a', chat)).held).toBe(true); // renews its own
  });

  it('with a take, the statement also takes the chat’s first unfinished row, only for the lease’s holder', async () => {
    const { chat, key, statements, inbox, record } = setup();
    const first = await record();
    const second = await record();
    const staleBefore = new Date(Date.now() - 60_000);
    // Not the first unfinished row: nothing is taken.
    const notFirst = await statements.acquireListing(key, 'p1', chat, {
      key: { platform: 'telegram', eventId: second },
      staleBefore,
      threadLease: true,
    });
    expect(notFirst).toMatchObject({ held: true });
    expect(notFirst.taken).toBeUndefined();
    // Another process, while p1 holds the lease: nothing is taken.
    const theirs = await statements.acquireListing(key, 'p2', chat, {
      key: { platform: 'telegram', eventId: first },
      staleBefore,
      threadLease: true,
    });
    expect(theirs.held).toBe(false);
    expect(theirs.taken).toBeUndefined();
    expect((await inbox.get({ platform: 'telegram', eventId: first }))?.state).toBe('received');
    // The holder, for the first row: taken in the same statement; the listing shows it as it was.
    const mine = await statements.acquireListing(key, 'p1', chat, {
      key: { platform: 'telegram', eventId: first },
      staleBefore,
      threadLease: true,
    });
    expect(mine.held).toBe(true);
    expect(mine.rows.map((row) => [row.eventId, row.state])).toEqual([
      [first, 'received'],
      [second, 'received'],
    ]);
    expect(mine.taken).toMatchObject({ eventId: first, chat, state: 'running', owner: 'p1', attempts: 1 });
    expect(mine.taken?.updatedAt).toBeInstanceOf(Date);
    expect(await inbox.get({ platform: 'telegram', eventId: first })).toEqual(mine.taken);
  });

  it('with a row taken, the statement also takes the chat’s current thread’s lease, kept for the run of that row; without one, no thread lease', async () => {
    const { chat, key, record } = setup();
    const leases = new ThreadLeases({ db: db().db, owner: 'p1', ttlMs: TTL });
    const statements = new ChatLeaseStatements({ db: db().db, leases, ttlMs: TTL });
    const first = await record();
    const second = await record();
    const staleBefore = new Date(Date.now() - 60_000);
    // Nothing taken (not the chat's first row): nothing kept, no thread lease row.
    const skipped = await statements.acquireListing(key, 'p1', chat, {
      key: { platform: 'telegram', eventId: second },
      staleBefore,
      threadLease: true,
    });
    expect(skipped.ahead).toBeUndefined();
    // Taken: the lease of the chat's current thread, under a holder of its own, given with the row once.
    const mine = await statements.acquireListing(key, 'p1', chat, {
      key: { platform: 'telegram', eventId: first },
      staleBefore,
      threadLease: true,
    });
    expect(mine.taken).toMatchObject({ eventId: first });
    const ahead = mine.ahead?.claim();
    expect(ahead).toEqual({ threadId: `${chat}#0`, holder: `p1/row:telegram:${first}` });
    expect(mine.ahead?.claim()).toBeUndefined();
    // A second try at the same row (the first one's answer was lost) takes the same lease again, at once.
    const again = await statements.acquireListing(key, 'p1', chat, {
      key: { platform: 'telegram', eventId: first },
      staleBefore,
      threadLease: true,
    });
    expect(again.taken).toMatchObject({ eventId: first, attempts: 2 });
    expect(again.ahead?.claim(`${chat}#1`)).toBeUndefined(); // claimed only by a run on its thread
    expect(again.ahead?.claim(`${chat}#0`)).toEqual(ahead);
    // Held in the database: another holder cannot take it; its holder can.
    const other = new ThreadLeases({ db: db().db, owner: 'p2', ttlMs: TTL });
    expect(await other.acquire(ahead!.threadId, 'p2/x')).toBe(false);
    expect(await leases.acquire(ahead!.threadId, ahead!.holder)).toBe(true);
    await leases.release(ahead!.threadId, ahead!.holder);
  });

  it('a row taken that is not a turn (a command typed in the chat) takes no thread lease with it', async () => {
    const { chat, key, statements, record } = setup();
    const eventId = await record();
    const mine = await statements.acquireListing(key, 'p1', chat, {
      key: { platform: 'telegram', eventId },
      staleBefore: new Date(Date.now() - 60_000),
      threadLease: false,
    });
    expect(mine.taken).toMatchObject({ eventId });
    expect(mine.ahead).toBeUndefined();
    const other = new ThreadLeases({ db: db().db, owner: 'p2', ttlMs: TTL });
    expect(await other.acquire(`${chat}#0`, 'p2/x')).toBe(true);
    await other.release(`${chat}#0`, 'p2/x');
  });

  it('a thread lease another holder has is not taken with the row, and nothing is kept', async () => {
    const { chat, key, statements, record } = setup();
    const eventId = await record();
    const other = new ThreadLeases({ db: db().db, owner: 'p2', ttlMs: TTL });
    expect(await other.acquire(`${chat}#0`, 'p2/x')).toBe(true);
    const mine = await statements.acquireListing(key, 'p1', chat, {
      key: { platform: 'telegram', eventId },
      staleBefore: new Date(Date.now() - 60_000),
      threadLease: true,
    });
    expect(mine.taken).toMatchObject({ eventId });
    expect(mine.ahead).toBeUndefined();
    await other.release(`${chat}#0`, 'p2/x');
  });

  it('a take in the listing never takes a row another live process is running', async () => {
    const { chat, key, statements, record } = setup();
    const eventId = await record();
    const other = new Inbox({ db: db().db, owner: 'p2' });
    expect(await other.take({ platform: 'telegram', eventId }, new Date(0))).toBeDefined();
    const mine = await statements.acquireListing(key, 'p1', chat, {
      key: { platform: 'telegram', eventId },
      staleBefore: new Date(Date.now() - 60_000),
      threadLease: true,
    });
    expect(mine.held).toBe(true);
    expect(mine.taken).toBeUndefined();
    // Once its owner counts as stopped, it is taken.
    const later = await statements.acquireListing(key, 'p1', chat, {
      key: { platform: 'telegram', eventId },
      staleBefore: new Date(Date.now() + 60_000),
      threadLease: true,
    });
    expect(later.taken).toMatchObject({ eventId, owner: 'p1', attempts: 2 });
  });

  it('without a lease (one process: the embedded database), the inbox’s listing takes the chat’s first row the same way', async () => {
    const { chat, inbox, record } = setup();
    const first = await record();
    const second = await record();
    const staleBefore = new Date(Date.now() - 60_000);
    const notFirst = await inbox.unfinishedTakingOf(chat, {
      key: { platform: 'telegram', eventId: second },
      staleBefore,
    });
    expect(notFirst.rows.map((row) => row.eventId)).toEqual([first, second]);
    expect(notFirst.taken).toBeUndefined();
    const listed = await inbox.unfinishedTakingOf(chat, { key: { platform: 'telegram', eventId: first }, staleBefore });
    expect(listed.rows.map((row) => [row.eventId, row.state])).toEqual([
      [first, 'received'],
      [second, 'received'],
    ]);
    expect(listed.taken).toMatchObject({ eventId: first, state: 'running', owner: 'p1', attempts: 1 });
    expect(await inbox.get({ platform: 'telegram', eventId: first })).toEqual(listed.taken);
    // Running under another live process: not taken.
    const other = new Inbox({ db: db().db, owner: 'p2' });
    await other.take({ platform: 'telegram', eventId: first }, new Date(Date.now() + 60_000));
    expect(
      (await inbox.unfinishedTakingOf(chat, { key: { platform: 'telegram', eventId: first }, staleBefore })).taken,
    ).toBeUndefined();
  });

  it('with nothing unfinished the lease is taken all the same, and held is unknown', async () => {
    const { chat, key, statements } = setup();
    expect(await statements.acquireListing(key, 'p1/a', chat)).toEqual({ held: undefined, rows: [] });
    expect(await statements.acquire(key, 'p2/b')).toBe(false);
  });

  it('the last listing lets the lease go only when no row is left', async () => {
    const { chat, key, statements, inbox, record } = setup();
    const eventId = await record();
    await statements.acquireListing(key, 'p1/a', chat);
    const left = await statements.listReleasing(key, 'p1/a', chat);
    expect(left.released).toBe(false);
    expect(left.rows.map((row) => row.eventId)).toEqual([eventId]);
    expect(await statements.acquire(key, 'p2/b')).toBe(false);
    await inbox.take({ platform: 'telegram', eventId }, new Date());
    await inbox.finish({ platform: 'telegram', eventId }, 'done');
    expect(await statements.listReleasing(key, 'p1/a', chat)).toEqual({ rows: [], released: true });
    expect(await statements.acquire(key, 'p2/b')).toBe(true);
  });

  it('never lets another holder’s lease go', async () => {
    const { chat, key, statements } = setup();
    expect(await statements.acquire(key, 'p2/b')).toBe(true);
    await statements.listReleasing(key, 'p1/a', chat);
    expect(await statements.acquire(key, 'p3/c')).toBe(false);
  });

  it('a renewal extends a held lease, and does not take back one that was let go', async () => {
    const { chat, key, statements } = setup();
    await statements.acquireListing(key, 'p1/a', chat);
    expect(await statements.renew(key, 'p1/a')).toBe(true);
    expect(await statements.renew(key, 'p2/b')).toBe(false);
    await statements.listReleasing(key, 'p1/a', chat);
    expect(await statements.renew(key, 'p1/a')).toBe(false);
    expect(await statements.acquire(key, 'p2/b')).toBe(true);
  });
});

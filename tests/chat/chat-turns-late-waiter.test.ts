// A chat's listing is a snapshot of the inbox taken when its statement starts. An event recorded and
// submitted while a listing is under way is not in it, yet its waiter is there when the rows come back.
// ChatTurns read "not listed" as "another process ran it" and answered the waiter 'duplicate': the
// message then sat in the inbox until the stale-row sweep took it up (~30 s on PostgreSQL, where the
// listing and the insert use different connections). Each way a listing is read — with the lease (PostgreSQL),
// the last listing that lets the lease go, a plain listing while holding, and while another process
// holds the chat — must leave such a waiter for the next listing.
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { ThreadLeases } from '../../src/core/turns/thread-lease.ts';
import { ChatLeaseStatements } from '../../src/core/turns/chat-lease-statements.ts';
import type { ChatLeases, TakeRequest } from '../../src/core/turns/chat-leases.ts';
import { ChatTurns } from '../../src/core/chat/queue/chat-turns.ts';
import { Inbox } from '../../src/core/chat/inbox/inbox.ts';
import type { RowEnd } from '../../src/core/turns/row-end.ts';
import { describeEachBackend } from '../helpers/databases.ts';
import { eventually } from '../helpers/eventually.ts';

type Listing = 'acquireListing' | 'listReleasing' | 'unfinishedOf';

describeEachBackend('an event submitted while its chat is being listed', (db) => {
  const TTL = 60_000;

  /**
   * ChatTurns over the real inbox and leases; `during` runs once, the first time `hook` is called after
   * `armed` is set: after the listing's statement ran, before its rows reach ChatTurns.
   */
  const setup = (options: { folded: boolean }) => {
    const chat = `telegram:${randomUUID()}`;
    const owner = `p-${randomUUID().slice(0, 8)}`;
    const inbox = new Inbox({ db: db().db, owner });
    const threadLeases = new ThreadLeases({ db: db().db, owner, ttlMs: TTL });
    const real: ChatLeases = options.folded
      ? new ChatLeaseStatements({ db: db().db, leases: threadLeases, ttlMs: TTL })
      : {
          acquire: (k, h) => threadLeases.acquire(k, h),
          release: (k, h) => threadLeases.release(k, h),
          renew: (k, h) => threadLeases.renew(k, h),
        };
    const ran: string[] = [];
    const hooks: { on?: Listing; during?: () => Promise<void> } = {};
    const after = async <T>(name: Listing, result: T): Promise<T> => {
      if (hooks.on === name && hooks.during) {
        const during = hooks.during;
        delete hooks.during;
        await during();
      }
      return result;
    };
    const leases: ChatLeases = {
      acquire: (k, h) => real.acquire(k, h),
      release: (k, h) => real.release(k, h),
      renew: (k, h) => real.renew(k, h),
      ...(real.acquireListing && {
        acquireListing: async (k: string, h: string, c: string, t?: TakeRequest) =>
          after('acquireListing', await real.acquireListing!(k, h, c, t)),
      }),
      ...(real.listReleasing && {
        listReleasing: async (k: string, h: string, c: string, e?: { row: RowEnd }) =>
          after('listReleasing', await real.listReleasing!(k, h, c, e)),
      }),
    };
    const turns = new ChatTurns({
      inbox: {
        owner,
        take: (key, staleBefore) => inbox.take(key, staleBefore),
        taken: (row) => inbox.taken(row),
        unfinishedOf: async (c) => after('unfinishedOf', await inbox.unfinishedOf(c)),
        unfinishedTakingOf: async (c, t) => after('unfinishedOf', await inbox.unfinishedTakingOf(c, t)),
        end: (end) => inbox.end(end),
        recordSent: (sent) => inbox.recordSent(sent),
      },
      leases,
      poll: { minMs: 5, maxMs: 20 },
      plan: async () => ({
        run: async (taken) => {
          ran.push(taken.eventId);
          return { outcome: 'handled' as const, end: { key: taken, state: 'done' as const } };
        },
      }),
    });
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
    /** Records an event and submits it, as the pipeline does. */
    const send = async () => {
      const eventId = await record();
      return { eventId, outcome: turns.submit(chat, { platform: 'telegram', eventId }) };
    };
    return { chat, turns, threadLeases, ran, hooks, send, record };
  };

  const lateSubmit = (
    hooks: { on?: Listing; during?: () => Promise<void> },
    on: Listing,
    send: () => Promise<{ eventId: string; outcome: Promise<string> }>,
  ) => {
    let late: { eventId: string; outcome: Promise<string> } | undefined;
    hooks.on = on;
    hooks.during = async () => {
      late = await send();
    };
    /** The late event, once the hook has run. */
    return () =>
      eventually(
        () => late,
        (event) => event,
        `the event submitted during ${on}`,
        { intervalMs: 5 },
      );
  };

  for (const folded of [true, false]) {
    const listings: Listing[] = folded ? ['acquireListing', 'listReleasing'] : ['unfinishedOf'];
    for (const on of listings) {
      it(`${folded ? 'leases with the listing folded in' : 'plain leases'}: one submitted during ${on} runs, in order`, async () => {
        const { turns, ran, hooks, send } = setup({ folded });
        const late = lateSubmit(hooks, on, send);
        const first = await send();
        expect(await first.outcome).toBe('handled');
        const second = await late();
        expect(second).toBeDefined();
        // Before the fix this was 'duplicate' at once, and the event was never run.
        expect(await second!.outcome).toBe('handled');
        expect(ran).toEqual([first.eventId, second!.eventId]);
        turns.close();
      });
    }
  }

  it('while another process holds the chat, one submitted during the listing waits for that process', async () => {
    const { chat, turns, threadLeases, ran, hooks, send } = setup({ folded: false });
    expect(await threadLeases.acquire(`inbox:${chat}`, 'another-process')).toBe(true);
    const late = lateSubmit(hooks, 'unfinishedOf', send);
    const first = await send();
    await new Promise((resolve) => setTimeout(resolve, 100)); // a few polls see the first row unfinished
    const second = await late();
    expect(second).toBeDefined();
    const settled: string[] = [];
    void second!.outcome.then((outcome) => settled.push(outcome));
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Not run by the other process (nothing finished it), so nothing may call it done: before the fix it was 'duplicate'.
    expect(settled).toEqual([]);
    await threadLeases.release(`inbox:${chat}`, 'another-process');
    expect(await first.outcome).toBe('handled');
    expect(await second!.outcome).toBe('handled');
    expect(ran).toEqual([first.eventId, second!.eventId]);
    turns.close();
  });
});

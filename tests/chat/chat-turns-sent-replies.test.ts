// A chat turn's replies are written `sending` before they go out, and recorded as sent by the statement
// that ends the turn's inbox row (sent-marks.ts) instead of one statement each: the chat's last listing
// where leases are rows (PostgreSQL), the row's end otherwise, and a statement of their own when the turn
// leaves its row running (a shutdown cut it short). A reply handed over once the run has ended is declined,
// so its sender records it itself. Each way, on every backend, over the real inbox and leases.
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { ThreadLeases } from '../../src/core/turns/thread-lease.ts';
import { ChatLeaseStatements } from '../../src/core/turns/chat-lease-statements.ts';
import { ChatTurns } from '../../src/core/chat/queue/chat-turns.ts';
import type { OrderedWork } from '../../src/core/chat/queue/turn-hand-offs.ts';
import { Inbox } from '../../src/core/chat/inbox/inbox.ts';
import type { ChatRef } from '../../src/core/surface/ref.ts';
import type { InboundEvent } from '../../src/core/surface/types.ts';
import { outbox } from '../../src/core/db/schema/outbox.ts';
import type { SentHandOff } from '../../src/core/outbox/sent-marks.ts';
import { describeEachBackend } from '../helpers/databases.ts';
import { eq } from 'drizzle-orm';

describeEachBackend('the replies a chat turn sent', (db) => {
  const setup = async (options: { folded: boolean }) => {
    const chat: ChatRef = `telegram:${randomUUID()}`;
    const owner = `p-${randomUUID().slice(0, 8)}`;
    const inbox = new Inbox({ db: db().db, owner });
    const threadLeases = new ThreadLeases({ db: db().db, owner, ttlMs: 60_000 });
    const leases = options.folded
      ? new ChatLeaseStatements({ db: db().db, leases: threadLeases, ttlMs: 60_000 })
      : undefined;
    let work: OrderedWork['run'] = async () => ({ outcome: 'handled' });
    const turns = new ChatTurns({
      inbox,
      ...(leases && { leases }),
      poll: { minMs: 5, maxMs: 20 },
      plan: async () => ({ run: (taken, o) => work(taken, o) }),
    });
    /** A `sending` reply row, as ReplyOutbox writes one before its send. */
    const sending = async () => {
      const id = `reply_${randomUUID()}`;
      await db()
        .db.insert(outbox)
        .values({ id, kind: 'message', destination: chat, payload: { text: 'hi' }, state: 'sending', attempts: 1 });
      return id;
    };
    const rowOf = async (id: string) => (await db().db.select().from(outbox).where(eq(outbox.id, id)))[0]!;
    const submit = async (run: OrderedWork['run']) => {
      work = run;
      const eventId = randomUUID();
      const event: InboundEvent = {
        kind: 'message',
        eventId,
        platform: 'telegram',
        chat,
        actor: { platform: 'telegram', id: '1' },
        text: 'hi',
      };
      expect(await inbox.record(event, 'received')).toBe(true);
      return {
        outcome: await turns.submit(chat, { platform: 'telegram', eventId }),
        row: await inbox.get({ platform: 'telegram', eventId }),
      };
    };
    return { sending, rowOf, submit, close: () => turns.close() };
  };
  const ref = { platform: 'telegram', chat: 'telegram:1', id: '77' } as never;

  for (const folded of [true, false]) {
    it(`are recorded as sent with the row's end (${folded ? 'the chat’s last listing' : 'the row’s end'})`, async () => {
      const t = await setup({ folded });
      const [first, second] = [await t.sending(), await t.sending()];
      const { outcome, row } = await t.submit(async (taken, { sentHandOff }) => {
        expect(sentHandOff({ id: first, ref, sentAt: new Date('2026-12-01T10:00:00Z') })).toBe(true);
        expect(sentHandOff({ id: second, ref: undefined, sentAt: new Date('2026-12-01T10:00:01Z') })).toBe(true);
        return { outcome: 'handled', end: { key: taken, state: 'done' } };
      });
      expect(outcome).toBe('handled');
      expect(row?.state).toBe('done');
      expect(await t.rowOf(first)).toMatchObject({
        state: 'sent',
        messageRef: { id: '77' },
        sentAt: new Date('2026-12-01T10:00:00Z'),
      });
      expect(await t.rowOf(second)).toMatchObject({
        state: 'sent',
        messageRef: null,
        sentAt: new Date('2026-12-01T10:00:01Z'),
      });
      t.close();
    });

    it(`are recorded as sent when the turn leaves its row running (${folded ? 'leases in rows' : 'local leases'})`, async () => {
      const t = await setup({ folded });
      const id = await t.sending();
      const { outcome, row } = await t.submit(async (_taken, { sentHandOff }) => {
        sentHandOff({ id, ref, sentAt: new Date() });
        return { outcome: 'stopping' };
      });
      expect(outcome).toBe('stopping');
      expect(row?.state).toBe('running');
      expect((await t.rowOf(id)).state).toBe('sent');
      t.close();
    });
  }

  it('a row the recovery already called "delivery unknown" stays so, and a hand-off after the run ended is declined', async () => {
    const t = await setup({ folded: true });
    const unknown = await t.sending();
    await db().db.update(outbox).set({ state: 'unknown' }).where(eq(outbox.id, unknown));
    let late: SentHandOff | undefined;
    await t.submit(async (taken, { sentHandOff }) => {
      sentHandOff({ id: unknown, ref, sentAt: new Date() });
      late = sentHandOff;
      return { outcome: 'handled', end: { key: taken, state: 'done' } };
    });
    expect((await t.rowOf(unknown)).state).toBe('unknown');
    expect(late!({ id: await t.sending(), ref, sentAt: new Date() })).toBe(false);
    t.close();
  });
});

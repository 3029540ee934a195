// Progress stamps (src/core/runs/progress.ts): a model or tool call stamps the row of its work at most
// once per gap, and taking a chat's inbox row counts as that row's stamp — the take writes progress_at
// itself, so the turn's first model call, right after it, costs no statement of its own.
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { Inbox } from '../../src/core/chat/inbox/inbox.ts';
import { inbox as inboxTable } from '../../src/core/db/schema/chat.ts';
import { progressStamps } from '../../src/core/runs/progress.ts';
import { describeEachBackend } from '../helpers/databases.ts';

describeEachBackend('progress stamps', (db) => {
  const MINUTE = 60_000;

  /** A chat with one running row this process has taken, and its progress_at read back. */
  async function runningChat(onTaken?: (chat: string) => void) {
    const chat = `telegram:${randomUUID()}`;
    const rows = new Inbox({ db: db().db, owner: 'p1', ...(onTaken && { onTaken }) });
    const eventId = randomUUID();
    await rows.record(
      {
        kind: 'message',
        eventId,
        platform: 'telegram',
        chat: chat as never,
        actor: { platform: 'telegram', id: '1' },
        text: 'hi',
      },
      'received',
    );
    expect(await rows.take({ platform: 'telegram', eventId }, new Date())).toBeDefined();
    const progressAt = async () =>
      (
        await db().db.select({ at: inboxTable.progressAt }).from(inboxTable).where(eq(inboxTable.eventId, eventId))
      )[0]!.at!.getTime();
    return { chat, progressAt };
  }
  const settle = () => new Promise((resolve) => setTimeout(resolve, 150));

  it('a call right after the take writes nothing: taking the row stamped it', async () => {
    const stamps = progressStamps({ db: db().db, minGapMs: MINUTE });
    const { chat, progressAt } = await runningChat((taken) => stamps.taken(taken));
    const atTake = await progressAt();
    await settle();
    stamps(`${chat}#1`);
    stamps(`${chat}#1`);
    await settle();
    expect(await progressAt()).toBe(atTake);
  });

  it('without the take’s word, the first call stamps the row, and the next within the gap does not', async () => {
    const stamps = progressStamps({ db: db().db, minGapMs: MINUTE });
    const { chat, progressAt } = await runningChat();
    const atTake = await progressAt();
    await settle();
    stamps(`${chat}#1`);
    await settle();
    const stamped = await progressAt();
    expect(stamped).toBeGreaterThan(atTake);
    stamps(`${chat}#2`); // a new thread of the same chat stamps the same row
    await settle();
    expect(await progressAt()).toBe(stamped);
  });

  it('another chat’s take does not stand for this one', async () => {
    const stamps = progressStamps({ db: db().db, minGapMs: MINUTE });
    const { chat, progressAt } = await runningChat();
    stamps.taken(`${chat}-other`);
    const atTake = await progressAt();
    await settle();
    stamps(`${chat}#1`);
    await settle();
    expect(await progressAt()).toBeGreaterThan(atTake);
  });
});

// Outbox retention: replies, messages and card edits that ended longer ago than `outbox.retention` are
// deleted; anything still to deliver, anything recent, and every card (a later edit needs the message it
// became) stays. The sweep does it on its own.
import { randomUUID } from 'node:crypto';
import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor, ChatRef } from '../../src/core/surface/index.ts';
import { outbox } from '../../src/core/db/schema/outbox.ts';
import { enqueueOutbox, getOutbox, moveOutbox } from '../../src/core/outbox/index.ts';
import { pruneOutbox } from '../../src/core/outbox/store.ts';
import type { OutboxState } from '../../src/core/db/schema/outbox.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { startAssembled, type Assembled } from '../helpers/assembled.ts';
import { describeEachBackend } from '../helpers/databases.ts';
import { eventually } from '../helpers/eventually.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';

const DAY = 24 * 60 * 60 * 1000;
const ENDED: OutboxState[] = ['sent', 'superseded', 'failed', 'unknown'];

describeEachBackend('outbox retention', (database) => {
  /** A row of `kind` moved to `state`, last touched `daysAgo` days ago. */
  async function row(kind: 'card' | 'edit' | 'message', state: OutboxState, daysAgo: number): Promise<string> {
    const db = database().db;
    const [id] = await enqueueOutbox(db, [{ kind, destination: 'telegram:1', payload: { text: `${kind} ${state}` } }]);
    if (state !== 'pending') await db.update(outbox).set({ state }).where(eq(outbox.id, id!));
    await db
      .update(outbox)
      .set({ updatedAt: new Date(Date.now() - daysAgo * DAY) })
      .where(eq(outbox.id, id!));
    return id!;
  }

  it('deletes replies and edits that ended before the cut-off, and keeps cards, open rows and recent ones', async () => {
    const old = [
      ...(await Promise.all(ENDED.map((state) => row('message', state, 8)))),
      ...(await Promise.all(ENDED.map((state) => row('edit', state, 8)))),
    ];
    const kept = [
      ...(await Promise.all(ENDED.map((state) => row('card', state, 30)))),
      await row('message', 'pending', 30),
      await row('message', 'sending', 30),
      await row('edit', 'pending', 30),
      ...(await Promise.all(ENDED.map((state) => row('message', state, 6)))),
    ];

    expect(await pruneOutbox(database().db, new Date(Date.now() - 7 * DAY))).toBe(old.length);

    const left = await database()
      .db.select({ id: outbox.id })
      .from(outbox)
      .where(inArray(outbox.id, [...old, ...kept]));
    expect(left.map((r) => r.id).sort()).toEqual([...kept].sort());
  });

  it('an edit of a card whose earlier edits were pruned still finds the card’s message', async () => {
    const db = database().db;
    const [card] = await enqueueOutbox(db, [
      { kind: 'card', destination: 'telegram:1', payload: { title: 'approve?' } },
    ]);
    await moveOutbox(db, card!, 'pending', 'sent', {
      messageRef: { platform: 'telegram', chat: 'telegram:1', id: '5' } as never,
    });
    const [edit] = await enqueueOutbox(db, [
      { kind: 'edit', destination: 'telegram:1', payload: { title: 'approved' }, targetId: card! },
    ]);
    await moveOutbox(db, edit!, 'pending', 'sent');
    await db
      .update(outbox)
      .set({ updatedAt: sql`now() - interval '30 days'` })
      .where(inArray(outbox.id, [card!, edit!]));

    await pruneOutbox(db, new Date(Date.now() - 7 * DAY));

    expect(await getOutbox(db, edit!)).toBeUndefined();
    expect((await getOutbox(db, card!))?.messageRef).toMatchObject({ id: '5' });
  });
});

describe('the sweep', () => {
  const chat: ChatRef = 'telegram:88';
  const actor: Actor = { platform: 'telegram', id: '88' };
  let llm: FakeLlm;
  let k: Assembled;
  beforeAll(async () => {
    llm = await startFakeLlm();
    k = await startAssembled({
      model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 0 },
      access: { users: [chat] },
      runs: { sweep_interval: '1s' },
      outbox: { retention: '1d' },
    });
    k.kazma.core.attachSurface(new RecordingSurface('telegram'));
  });
  afterAll(async () => {
    await k?.close();
    await llm?.close();
  });

  it('prunes a reply delivered longer ago than outbox.retention, and keeps today’s', async () => {
    const replies = async () =>
      k.database.db.select({ id: outbox.id }).from(outbox).where(eq(outbox.destination, chat)).orderBy(outbox.seq);
    await k.kazma.core.pipeline.handle({
      kind: 'message',
      eventId: randomUUID(),
      platform: 'telegram',
      chat,
      actor,
      text: 'yesterday',
    });
    await k.settled();
    const [old] = await replies();
    await k.database.db
      .update(outbox)
      .set({ updatedAt: new Date(Date.now() - 2 * DAY) })
      .where(eq(outbox.id, old!.id));
    await k.kazma.core.pipeline.handle({
      kind: 'message',
      eventId: randomUUID(),
      platform: 'telegram',
      chat,
      actor,
      text: 'today',
    });
    await k.settled();

    const left = await eventually(
      replies,
      (rows) => (rows.some((r) => r.id === old!.id) ? undefined : rows),
      'the sweep to prune the old reply',
    );
    expect(left).toHaveLength(1);
  });
});

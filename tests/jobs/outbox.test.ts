import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SurfaceRegistry } from '../../src/core/surface/surfaces.ts';
import type { Card, Surface } from '../../src/core/surface/types.ts';
import { createLogger } from '../../src/core/log/index.ts';
import { eq } from 'drizzle-orm';
import { outbox } from '../../src/core/db/index.ts';
import { editOwnedCards, enqueueOutbox, getOutbox, moveOutbox, postOwnedCards } from '../../src/core/outbox/index.ts';
import { watchOutbox } from '../../src/core/runs/watch-outbox.ts';
import { JobKinds } from '../../src/core/jobs/port.ts';
import { JobOutboxDispatcher, outboxDeliveryJob } from '../../src/core/outbox/jobs.ts';
import { BullJobDriver } from '../../src/jobs/driver.ts';
import { describeEachBackend } from '../helpers/databases.ts';
import { eventually } from '../helpers/eventually.ts';
import { TEST_REDIS } from '../helpers/outbox.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';

const card = (title: string): Card => ({
  title,
  fields: [{ label: 'tool', value: 'shell' }],
  buttons: [{ id: 'apv:g1:once', label: 'Once', style: 'primary' }],
});
const logger = createLogger({ level: 'silent', pretty: false });

/** Waits until every row in `ids` is sent; on timeout the message shows each row's state and error. */
async function allSent(db: Parameters<typeof getOutbox>[0], ids: readonly (string | undefined)[]): Promise<void> {
  await eventually(
    async () =>
      Promise.all(
        ids.map(async (id) => {
          const row = await getOutbox(db, id!);
          return { id, state: row?.state, error: row?.lastError };
        }),
      ),
    (rows) => rows.every((r) => r.state === 'sent'),
    `outbox rows ${ids.join(', ')} all sent`,
  );
}

describeEachBackend('outbox delivered through BullMQ on real Redis', (database) => {
  const surfaces = new SurfaceRegistry();
  const telegram = new RecordingSurface('telegram');
  const slack = new RecordingSurface('slack');
  const discord = new RecordingSurface('discord');
  let worker: ReturnType<typeof newWorker>;
  /** The outbox as Kazma runs it: the delivery job kind on the one BullMQ driver, and its dispatcher. */
  const newWorker = () => {
    const kinds = new JobKinds();
    const kind = outboxDeliveryJob({ db: database().db, surfaces });
    kinds.register(kind);
    const driver = new BullJobDriver({
      connection: TEST_REDIS,
      prefix: `kazma-test-${randomBytes(4).toString('hex')}`,
      kinds,
      concurrency: { outbox: 4 },
      logger,
    });
    driver.startWorkers();
    const dispatcher = new JobOutboxDispatcher({ queue: driver, kind, db: database().db, surfaces, logger });
    return {
      dispatch: (ids: string[]) => dispatcher.dispatch(ids),
      // A second ahead by default: the row's updated_at is the database's now(), which can read a little
      // past this process's clock (and within the same millisecond, past it).
      recover: (sendingBefore = new Date(Date.now() + 1_000)) => dispatcher.recover({ sendingBefore }),
      close: () => driver.close(),
    };
  };

  beforeAll(() => {
    surfaces.attach(telegram);
    surfaces.attach(slack);
    surfaces.attach(discord);
    worker = newWorker();
  });
  afterAll(async () => worker.close());

  it('sends a card to three destinations once each and records every message reference, even when dispatched twice', async () => {
    const ids = await enqueueOutbox(database().db, [
      { kind: 'card', destination: 'telegram:-100123', payload: card('A'), owner: { kind: 'gate', id: 'g1' } },
      { kind: 'card', destination: 'slack:C0123', payload: card('A'), owner: { kind: 'gate', id: 'g1' } },
      { kind: 'card', destination: 'discord:456', payload: card('A'), owner: { kind: 'gate', id: 'g1' } },
    ]);
    await worker.dispatch(ids);
    await worker.dispatch(ids);
    await allSent(database().db, ids);
    await new Promise((r) => setTimeout(r, 300)); // a duplicate job would have run by now
    for (const surface of [telegram, slack, discord])
      expect(surface.cards.filter((s) => s.card.title === 'A')).toHaveLength(1);
    const row = await getOutbox(database().db, ids[0]!);
    expect(row?.messageRef).toEqual(telegram.cards.find((s) => s.card.title === 'A')!.ref);
  });

  it('retries a delivery the platform refused, and sends it once', async () => {
    slack.failNext(2);
    const [id] = await enqueueOutbox(database().db, [{ kind: 'card', destination: 'slack:C0123', payload: card('B') }]);
    await worker.dispatch([id!]);
    await allSent(database().db, [id]);
    expect(slack.cards.filter((s) => s.card.title === 'B')).toHaveLength(1);
    expect((await getOutbox(database().db, id!))?.attempts).toBe(3);
  });

  it("a delivery that failed every attempt goes out when it is dispatched again (the sweep, an incident's Retry)", async () => {
    // The real delivery kind, with a short retry schedule so the attempts run out within the test.
    const kinds = new JobKinds();
    const kind = { ...outboxDeliveryJob({ db: database().db, surfaces }), attempts: 2, backoffMs: 10 };
    kinds.register(kind);
    const driver = new BullJobDriver({
      connection: TEST_REDIS,
      prefix: `kazma-test-${randomBytes(4).toString('hex')}`,
      kinds,
      logger,
    });
    driver.startWorkers(['outbox']);
    try {
      const dispatcher = new JobOutboxDispatcher({ queue: driver, kind, db: database().db, surfaces, logger });
      slack.failNext(2);
      const [id] = await enqueueOutbox(database().db, [
        { kind: 'card', destination: 'slack:C0123', payload: card('F') },
      ]);
      await dispatcher.dispatch([id!]);
      await eventually(
        () => getOutbox(database().db, id!),
        (row) => row?.attempts === 2 && row.state === 'pending',
        'both attempts made, the row left pending',
      );
      await new Promise((r) => setTimeout(r, 300)); // the job's last failure reaches Redis just after the row's
      // The platform is back; the sweep dispatches the still-pending row again. Before the fix the failed
      // job kept its id in Redis, so this dispatch added nothing and the card was never sent.
      await dispatcher.recover({ sendingBefore: new Date(0) });
      await allSent(database().db, [id]);
      expect(slack.cards.filter((s) => s.card.title === 'F')).toHaveLength(1);
    } finally {
      await driver.close();
    }
  });

  it("a retry waits as long as the platform asked (a 429's retry_after), not just the first backoff", async () => {
    const tries: number[] = [];
    // A platform that rate-limits the first try and asks for 1.5 s; the adapters carry that as retryAfterMs.
    const limited: Surface = {
      platform: 'slack',
      send: async (chat) => ({ chat, id: 'm' }),
      sendCard: async (chat) => {
        tries.push(Date.now());
        if (tries.length === 1)
          throw Object.assign(new Error('Slack refused chat.postMessage: ratelimited'), { retryAfterMs: 1500 });
        return { chat, id: 'card-1' };
      },
      editCard: async () => {},
      typing: async () => {},
    };
    const own = new SurfaceRegistry();
    own.attach(limited);
    const kinds = new JobKinds();
    const kind = outboxDeliveryJob({ db: database().db, surfaces: own });
    kinds.register(kind);
    const driver = new BullJobDriver({
      connection: TEST_REDIS,
      prefix: `kazma-test-${randomBytes(4).toString('hex')}`,
      kinds,
      logger,
    });
    driver.startWorkers(['outbox']);
    try {
      const [id] = await enqueueOutbox(database().db, [
        { kind: 'card', destination: 'slack:C0LIMIT', payload: card('L') },
      ]);
      await new JobOutboxDispatcher({ queue: driver, kind, db: database().db, surfaces: own, logger }).dispatch([id!]);
      await allSent(database().db, [id]);
      // Before: the second try came after the first backoff, 0.5 s, into another 429.
      expect(tries).toHaveLength(2);
      expect(tries[1]! - tries[0]!).toBeGreaterThanOrEqual(1400);
    } finally {
      await driver.close();
    }
  });

  it('an edit waits for its card and then edits the delivered message', async () => {
    const [cardId] = await enqueueOutbox(database().db, [
      { kind: 'card', destination: 'discord:456', payload: card('C') },
    ]);
    const [editId] = await enqueueOutbox(database().db, [
      {
        kind: 'edit',
        destination: 'discord:456',
        targetId: cardId,
        payload: { ...card('C'), buttons: [], footer: 'Approved once by maya' },
      },
    ]);
    await worker.dispatch([editId!]); // before its card: must wait, not fail
    await new Promise((r) => setTimeout(r, 200));
    await worker.dispatch([cardId!]);
    await allSent(database().db, [editId]);
    const sent = discord.cards.find((s) => s.card.title === 'C')!;
    expect(sent.edits).toEqual([expect.objectContaining({ buttons: [], footer: 'Approved once by maya' })]);
  });

  it('after a crash: rows written but never sent go out once; a row caught mid-send is marked unknown and not re-sent', async () => {
    await worker.close();
    const [unsent1, unsent2, midSend] = await enqueueOutbox(database().db, [
      { kind: 'card', destination: 'telegram:-100123', payload: card('D1') },
      { kind: 'card', destination: 'slack:C0123', payload: card('D2') },
      { kind: 'card', destination: 'discord:456', payload: card('D3') },
    ]);
    await moveOutbox(database().db, midSend!, 'pending', 'sending'); // the process died inside send()
    // As a start recovers: what was sending before it began. With "now" as the cut-off, the second recover
    // could catch this worker's own send of an unsent row under way and call it unknown (seen under load).
    await new Promise((r) => setTimeout(r, 20));
    const startedAt = new Date();
    worker = newWorker();
    await worker.recover(startedAt);
    await worker.recover(startedAt); // a second start must not send twice either
    await allSent(database().db, [unsent1, unsent2]);
    await new Promise((r) => setTimeout(r, 300));
    expect(telegram.cards.filter((s) => s.card.title === 'D1')).toHaveLength(1);
    expect(slack.cards.filter((s) => s.card.title === 'D2')).toHaveLength(1);
    expect(discord.cards.filter((s) => s.card.title === 'D3')).toHaveLength(0);
    expect((await getOutbox(database().db, midSend!))?.state).toBe('unknown');
  });

  it('a start’s recovery marks unknown only what was sending before the process started, not a send of its own already under way', async () => {
    // The embedded database's start recovered with "now" as the cut-off, after the platforms and the
    // delivery workers had started: a card this process was sending right then (a delivery job left in
    // Redis, a reply to a message received at once) became "delivery unknown" mid-send, its "sent" was
    // refused, and the incident's Retry would send it again.
    await worker.close();
    const [leftOver, ownSend] = await enqueueOutbox(database().db, [
      { kind: 'card', destination: 'telegram:-100123', payload: card('E1') },
      { kind: 'card', destination: 'slack:C0123', payload: card('E2') },
    ]);
    await moveOutbox(database().db, leftOver!, 'pending', 'sending'); // the last run died inside send()
    await new Promise((r) => setTimeout(r, 20));
    const startedAt = new Date();
    await new Promise((r) => setTimeout(r, 20));
    await moveOutbox(database().db, ownSend!, 'pending', 'sending'); // this run's worker is sending it
    worker = newWorker();
    await worker.recover(startedAt);
    expect((await getOutbox(database().db, leftOver!))?.state).toBe('unknown');
    expect((await getOutbox(database().db, ownSend!))?.state).toBe('sending');
  });

  it('a message in several parts cut short by a stop goes on after the parts it says went out, without a person', async () => {
    // Before, every row left `sending` became "delivery unknown": the rest of a long reply waited for an
    // incident and a person's Retry. A row that records parts the platform took is resumed (or, with
    // every part taken, recorded sent); one that staged a delivery in steps (a Slack upload's file id) is
    // resumed with what it staged, for the platform to be asked; one that records nothing is still unknown.
    await worker.close();
    const chat = 'telegram:-100123';
    const [resumed, complete, silent, staged] = await enqueueOutbox(database().db, [
      { kind: 'message', destination: chat, payload: { text: 'R' } },
      { kind: 'message', destination: chat, payload: { text: 'C' } },
      { kind: 'message', destination: chat, payload: { text: 'S' } },
      { kind: 'message', destination: chat, payload: { text: 'F' } },
    ]);
    for (const [id, delivered] of [
      [resumed, 1],
      [complete, 3],
      [silent, 0],
      [staged, 0],
    ] as const) {
      await moveOutbox(database().db, id!, 'pending', 'sending');
      if (delivered)
        await database()
          .db.update(outbox)
          .set({ messageRef: { chat, id: `first-${id}`, delivered, of: 3 } })
          .where(eq(outbox.id, id!));
    }
    await database()
      .db.update(outbox)
      .set({ messageRef: { chat, id: 'F0UPLOAD', staged: true } })
      .where(eq(outbox.id, staged!));
    worker = newWorker();
    await worker.recover();
    await allSent(database().db, [resumed, complete, staged]);
    expect(telegram.sent.filter((m) => m.chat === chat)).toEqual([
      { chat, text: 'R' },
      { chat, text: 'F', staged: 'F0UPLOAD' },
    ]);
    expect((await getOutbox(database().db, complete!))?.messageRef).toMatchObject({ id: `first-${complete}` });
    expect((await getOutbox(database().db, silent!))?.state).toBe('unknown');
  });

  it('a card whose delivery is unknown: its edit raises no incident of its own, and its Retry shows the decision', async () => {
    // Killed mid card, then decided: the edit failed for want of a message to edit, so two incidents
    // appeared — the card's, and the edit's, whose Retry could never succeed — and a Retry of the card
    // posted it with live buttons for a question already decided.
    const owner = { kind: 'gate', id: `g-${randomBytes(3).toString('hex')}` };
    const [cardId] = await postOwnedCards(database().db, owner, card('G open'), ['slack:C0123']);
    await moveOutbox(database().db, cardId!, 'pending', 'sending'); // the process died inside send()
    await worker.recover();
    expect((await getOutbox(database().db, cardId!))?.state).toBe('unknown');
    const decided = { ...card('G approved'), buttons: [] };
    const [editId] = await editOwnedCards(database().db, owner, decided);
    await worker.dispatch([editId!]);
    await eventually(
      () => getOutbox(database().db, editId!),
      (row) => row?.state !== 'pending',
      'the edit ended',
    );
    const watch = watchOutbox(database().db, (ids) => worker.dispatch(ids));
    const findings = await watch.scan({ now: new Date(), stallAfterMs: 600_000 });
    expect(findings.filter((f) => f.workId === cardId || f.workId === editId).map((f) => f.workId)).toEqual([cardId]);
    await watch.act('retry', cardId!);
    await allSent(database().db, [cardId]);
    expect(slack.cards.filter((c) => c.card.title.startsWith('G ')).map((c) => c.card)).toEqual([decided]);
  });
});

import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SurfaceRegistry } from '../../src/core/chat/surfaces.ts';
import type { Card } from '../../src/core/chat/types.ts';
import { createLogger } from '../../src/core/log/index.ts';
import { enqueueOutbox, getOutbox, moveOutbox } from '../../src/core/outbox/index.ts';
import { OutboxWorker } from '../../src/jobs/outbox-worker.ts';
import { describeEachBackend } from '../helpers/databases.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';

const card = (title: string): Card => ({ title, fields: [{ label: 'tool', value: 'shell' }], buttons: [{ id: 'apv:g1:once', label: 'Once', style: 'primary' }] });
const logger = createLogger({ level: 'silent', pretty: false });

async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describeEachBackend('outbox delivered through BullMQ on real Redis', (database) => {
  const surfaces = new SurfaceRegistry();
  const telegram = new RecordingSurface('telegram');
  const slack = new RecordingSurface('slack');
  const discord = new RecordingSurface('discord');
  let worker: OutboxWorker;
  const newWorker = () =>
    new OutboxWorker({ db: database().db, surfaces, logger, concurrency: 4, queue: { connection: { host: '127.0.0.1', port: 6379, maxRetriesPerRequest: null }, prefix: `kazma-test-${randomBytes(4).toString('hex')}` } });

  beforeAll(() => {
    surfaces.attach(telegram);
    surfaces.attach(slack);
    surfaces.attach(discord);
    worker = newWorker();
  });
  afterAll(async () => worker.close());

  it('sends a card to three destinations once each and records every message reference, even when dispatched twice', async () => {
    const ids = await enqueueOutbox(database().db, [
      { kind: 'card', destination: 'telegram:-100123', payload: card('A'), gateId: 'g1' },
      { kind: 'card', destination: 'slack:C0123', payload: card('A'), gateId: 'g1' },
      { kind: 'card', destination: 'discord:456', payload: card('A'), gateId: 'g1' },
    ]);
    await worker.dispatch(ids);
    await worker.dispatch(ids);
    await until(async () => (await Promise.all(ids.map((id) => getOutbox(database().db, id)))).every((r) => r?.state === 'sent'));
    await new Promise((r) => setTimeout(r, 300)); // a duplicate job would have run by now
    for (const surface of [telegram, slack, discord]) expect(surface.cards.filter((s) => s.card.title === 'A')).toHaveLength(1);
    const row = await getOutbox(database().db, ids[0]!);
    expect(row?.messageRef).toEqual(telegram.cards.find((s) => s.card.title === 'A')!.ref);
  });

  it('retries a delivery the platform refused, and sends it once', async () => {
    slack.failNext(2);
    const [id] = await enqueueOutbox(database().db, [{ kind: 'card', destination: 'slack:C0123', payload: card('B') }]);
    await worker.dispatch([id!]);
    await until(async () => (await getOutbox(database().db, id!))?.state === 'sent');
    expect(slack.cards.filter((s) => s.card.title === 'B')).toHaveLength(1);
    expect((await getOutbox(database().db, id!))?.attempts).toBe(3);
  });

  it('an edit waits for its card and then edits the delivered message', async () => {
    const [cardId] = await enqueueOutbox(database().db, [{ kind: 'card', destination: 'discord:456', payload: card('C') }]);
    const [editId] = await enqueueOutbox(database().db, [{ kind: 'edit', destination: 'discord:456', targetId: cardId, payload: { ...card('C'), buttons: [], footer: 'Approved once by maya' } }]);
    await worker.dispatch([editId!]); // before its card: must wait, not fail
    await new Promise((r) => setTimeout(r, 200));
    await worker.dispatch([cardId!]);
    await until(async () => (await getOutbox(database().db, editId!))?.state === 'sent');
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
    worker = newWorker();
    await worker.recover();
    await worker.recover(); // a second start must not send twice either
    await until(async () => (await getOutbox(database().db, unsent1!))?.state === 'sent' && (await getOutbox(database().db, unsent2!))?.state === 'sent');
    await new Promise((r) => setTimeout(r, 300));
    expect(telegram.cards.filter((s) => s.card.title === 'D1')).toHaveLength(1);
    expect(slack.cards.filter((s) => s.card.title === 'D2')).toHaveLength(1);
    expect(discord.cards.filter((s) => s.card.title === 'D3')).toHaveLength(0);
    expect((await getOutbox(database().db, midSend!))?.state).toBe('unknown');
  });
});

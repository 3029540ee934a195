// Edits of one card can reach a worker out of order: an edit whose card was not delivered yet waits for
// a retry (with backoff) while a newer edit of the same card goes through. The card must end on the
// newest edit, never go back to an older state.
import { sql } from 'drizzle-orm';
import { expect, it } from 'vitest';
import type { Card } from '../../src/core/surface/types.ts';
import { SurfaceRegistry } from '../../src/core/surface/surfaces.ts';
import { EditTargetNotReadyError, deliverOutbox } from '../../src/core/outbox/deliver.ts';
import { enqueueOutbox, getOutbox, moveOutbox } from '../../src/core/outbox/index.ts';
import { describeEachBackend } from '../helpers/databases.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';

const card = (state: string): Card => ({ title: 'Task t1', fields: [{ label: 'State', value: state }], buttons: [] });
const owner = { kind: 'task', id: 't1' };

describeEachBackend('edits of one card delivered out of order', (database) => {
  const rig = async () => {
    const surfaces = new SurfaceRegistry();
    const telegram = new RecordingSurface('telegram');
    surfaces.attach(telegram);
    const db = database().db;
    const [cardId] = await enqueueOutbox(db, [
      { kind: 'card', destination: 'telegram:1', payload: card('queued'), owner },
    ]);
    const edit = async (state: string) =>
      (
        await enqueueOutbox(db, [
          { kind: 'edit', destination: 'telegram:1', targetId: cardId!, payload: card(state), owner },
        ])
      )[0]!;
    const states = () => telegram.cards[0]?.edits.map((e) => e.fields[0]!.value);
    return { db, surfaces, cardId: cardId!, edit, states };
  };

  it('an older edit retried after a newer one was sent is superseded, not sent: the card ends on the newest state', async () => {
    const { db, surfaces, cardId, edit, states } = await rig();
    const running = await edit('running');
    // The first try of the older edit finds its card not delivered yet: it is retried later.
    await expect(deliverOutbox(db, surfaces, running)).rejects.toBeInstanceOf(EditTargetNotReadyError);
    await deliverOutbox(db, surfaces, cardId);
    const done = await edit('done');
    expect(await deliverOutbox(db, surfaces, done)).toBe('sent');
    // The retry of the older edit comes last.
    expect(await deliverOutbox(db, surfaces, running)).toBe('skipped');
    expect(states()).toEqual(['done']);
    expect((await getOutbox(db, running))?.state).toBe('superseded');
    expect((await getOutbox(db, done))?.state).toBe('sent');
  });

  it('a newer edit waits while an older edit of the same card is being sent, then goes out after it', async () => {
    const { db, surfaces, cardId, edit, states } = await rig();
    await deliverOutbox(db, surfaces, cardId);
    const running = await edit('running');
    const done = await edit('done');
    // Another worker has claimed the older edit and is sending it right now.
    await moveOutbox(db, running, 'pending', 'sending');
    await expect(deliverOutbox(db, surfaces, done)).rejects.toBeInstanceOf(EditTargetNotReadyError);
    expect((await getOutbox(db, done))?.state).toBe('pending');
    await moveOutbox(db, running, 'sending', 'sent');
    expect(await deliverOutbox(db, surfaces, done)).toBe('sent');
    expect(states()).toEqual(['done']);
  });

  it('the newest edit is the one written last, whatever created_at says', async () => {
    // PGlite's clock ticks in milliseconds (two edits in one tick tied, and fell to their random ids), and
    // on PostgreSQL now() is when a transaction began: here the newer edit's instant is the older.
    const { db, surfaces, cardId, edit, states } = await rig();
    await deliverOutbox(db, surfaces, cardId);
    const running = await edit('running');
    const done = await edit('done');
    await db.execute(sql`update outbox set created_at = now() - interval '1 second' where id = ${done}`);
    expect(await deliverOutbox(db, surfaces, done)).toBe('sent');
    expect(await deliverOutbox(db, surfaces, running)).toBe('skipped');
    expect(states()).toEqual(['done']);
  });

  it('edits delivered in order are each sent', async () => {
    const { db, surfaces, cardId, edit, states } = await rig();
    await deliverOutbox(db, surfaces, cardId);
    expect(await deliverOutbox(db, surfaces, await edit('running'))).toBe('sent');
    expect(await deliverOutbox(db, surfaces, await edit('done'))).toBe('sent');
    expect(states()).toEqual(['running', 'done']);
  });
});

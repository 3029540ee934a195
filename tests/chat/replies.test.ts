// Replies go through the outbox: written before they are sent, keyed by their message, so delivering a
// turn's replies again (the turn taken up after a crash) sends only what never went out, and a send the
// platform refuses is left to the outbox worker's retries with the rest of the turn behind it, in order.
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { SurfaceRegistry } from '../../src/core/surface/surfaces.ts';
import { getOutbox } from '../../src/core/outbox/index.ts';
import { ReplyOutbox, replyOutboxId } from '../../src/core/outbox/replies.ts';
import { describeEachBackend } from '../helpers/databases.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';

function setup(db: Parameters<typeof getOutbox>[0]) {
  const surface = new RecordingSurface('telegram');
  const surfaces = new SurfaceRegistry();
  surfaces.attach(surface);
  const dispatched: string[] = [];
  const replies = new ReplyOutbox({
    db,
    surfaces,
    dispatcher: { dispatch: async (ids) => void dispatched.push(...ids) },
  });
  return { surface, replies, dispatched };
}

describeEachBackend('reply outbox', (db) => {
  it('sends each reply once, however often the turn delivers them', async () => {
    const { surface, replies, dispatched } = setup(db().db);
    const turn = [
      { key: `ai-${randomUUID()}`, text: 'one' },
      { key: `ai-${randomUUID()}`, text: 'two' },
    ];
    await replies.deliver('telegram:42', turn);
    await replies.deliver('telegram:42', turn);
    await replies.deliver('telegram:42', [...turn, { key: `ai-${randomUUID()}`, text: 'three' }]);
    expect(surface.texts()).toEqual(['one', 'two', 'three']);
    expect(dispatched).toEqual([]);
    for (const reply of turn)
      expect(await getOutbox(db().db, replyOutboxId(reply.key))).toMatchObject({ state: 'sent', kind: 'message' });
  });

  it('leaves a refused send and everything after it to the worker, in order', async () => {
    const { surface, replies, dispatched } = setup(db().db);
    const turn = [
      { key: `ai-${randomUUID()}`, text: 'a' },
      { key: `ai-${randomUUID()}`, text: 'b' },
      { key: `ai-${randomUUID()}`, text: 'c' },
    ];
    surface.failNext(1);
    await replies.deliver('telegram:42', turn);
    expect(surface.texts()).toEqual([]);
    expect(dispatched).toEqual(turn.map((r) => replyOutboxId(r.key)));
    for (const reply of turn)
      expect(await getOutbox(db().db, replyOutboxId(reply.key))).toMatchObject({ state: 'pending' });
    // Taken up again (the platform is back): the pending rows go out, in order, once.
    await replies.deliver('telegram:42', turn);
    await replies.deliver('telegram:42', turn);
    expect(surface.texts()).toEqual(['a', 'b', 'c']);
  });

  it('never re-sends a reply caught mid-send by a crash', async () => {
    const { surface, replies } = setup(db().db);
    const reply = { key: `ai-${randomUUID()}`, text: 'maybe sent' };
    await replies.deliver('telegram:42', [reply]);
    // As if the process died between the send and recording it: the row is still `sending`.
    const { moveOutbox } = await import('../../src/core/outbox/index.ts');
    await moveOutbox(db().db, replyOutboxId(reply.key), 'sent', 'sending');
    await replies.deliver('telegram:42', [reply]);
    expect(surface.texts()).toEqual(['maybe sent']);
  });
});

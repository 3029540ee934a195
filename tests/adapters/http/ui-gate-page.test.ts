// The approvals page's read (GatePages): one numbered page and the count of all, in order; a gate kept
// read is read again once its row changed, whoever changed it; a page past the end still says how many.
import { eq } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { GatePages } from '../../../src/core/approvals/index.ts';
import { DurableApprovalBroker } from '../../../src/core/approvals/durable-broker.ts';
import { approvalGates } from '../../../src/core/db/index.ts';
import { FirstDecisionWins } from '../../../src/core/decisions/first-wins.ts';
import { createLogger } from '../../../src/core/log/index.ts';
import { type ChatRef, SurfaceRegistry } from '../../../src/core/surface/index.ts';
import { describeEachBackend } from '../../helpers/databases.ts';

const MAYA = { platform: 'telegram', id: '42', displayName: 'maya' };

describeEachBackend('the approvals page read', (database) => {
  const broker = () => {
    const { db } = database();
    const logger = createLogger({ level: 'silent' });
    return new DurableApprovalBroker({
      db,
      decisions: new FirstDecisionWins({
        db,
        outbox: { dispatch: async () => {} },
        surfaces: new SurfaceRegistry(),
        logger,
      }),
      channels: [],
      logger,
      timeoutMs: 3_600_000,
      grantTtlMs: 3_600_000,
      mayDecide: () => undefined,
      operatorName: () => 'maya',
    });
  };
  const open = (b: DurableApprovalBroker, i: number) =>
    b.open({
      threadId: `page-t${i}`,
      interruptId: `page-i${i}`,
      chat: 'telegram:1' as ChatRef,
      requester: MAYA,
      call: { kind: 'tool_approval', callId: `c${i}`, tool: 'launch', args: { n: i }, tier: 'danger', reason: 'r' },
    });

  it('pages in order with the count of all, reads a changed row again, and counts past the end', async () => {
    const b = broker();
    const opened = [];
    for (let i = 0; i < 5; i++) opened.push(await open(b, i));
    const ids = opened.map((g) => g.gateId);
    const pages = new GatePages({ db: database().db });
    const first = await pages.page({ states: ['pending'], limit: 2 });
    expect(first.total).toBe(5);
    expect(first.gates.map((g) => g.gateId)).toEqual(ids.slice(0, 2));
    const second = await pages.page({ states: ['pending'], limit: 2, offset: 2 });
    expect(second.gates.map((g) => g.gateId)).toEqual(ids.slice(2, 4));

    // A writer that touches neither updated_at nor this process: the next read shows its change.
    await database().db.update(approvalGates).set({ reason: 'changed elsewhere' }).where(eq(approvalGates.id, ids[0]!));
    const again = await pages.page({ states: ['pending'], limit: 2 });
    expect(again.gates.map((g) => g.call.reason)).toEqual(['changed elsewhere', 'r']);
    // A decided gate leaves the page and the count.
    await b.decide({ gateId: ids[1]!, decision: 'deny', actor: MAYA, reason: 'no' });
    const after = await pages.page({ states: ['pending'], limit: 2 });
    expect(after.total).toBe(4);
    expect(after.gates.map((g) => g.gateId)).toEqual([ids[0], ids[2]]);

    expect(await pages.page({ states: ['pending'], limit: 2, offset: 10 })).toEqual({ gates: [], total: 4 });
    await b.supersede('page-t0', 'done');
    for (let i = 2; i < 5; i++) await b.supersede(`page-t${i}`, 'done');
    expect(await pages.page({ states: ['pending'], limit: 2 })).toEqual({ gates: [], total: 0 });
  });
});

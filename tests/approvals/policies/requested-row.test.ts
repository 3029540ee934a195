// The audit's `requested` row: opening a question writes it with the gate (same transaction: its time is the
// gate's), the export reads the question's asking from it, and an opening run again for the same gate (a crash
// or a redelivery before the turn knew it had asked) adds no second row.
import { and, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { approvalRecords } from '../../../src/core/approvals/index.ts';
import { auditRequest, getGate } from '../../../src/core/approvals/gate-store.ts';
import { decisionAudit } from '../../../src/core/db/schema/decision-audit.ts';
import { CHAT, startTestCore, type TestCore } from '../../agent/helpers/core.ts';
import { startFakeLlm, type FakeLlm } from '../../fakes/llm-server.ts';
import { BACKENDS } from '../../helpers/databases.ts';
import { access, launch, launchTool, only, tapEvent, TG } from '../helpers.ts';

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});

for (const backend of BACKENDS) {
  describe(`the requested row [${backend}]`, () => {
    let k: TestCore | undefined;
    afterEach(async () => {
      await k?.close();
    });

    it('is written once with the gate, read by the export, and not again when the opening runs again', async () => {
      const tool = launchTool();
      k = await startTestCore({
        baseURL: llm.baseURL,
        backend,
        config: { access: access(), approvals: { policies: [{ name: 'launches', match: { tools: ['launch'] } }] } },
        tools: [tool.tool],
      });
      llm.script(launch({ target: 'prod-db' }));
      await k.say('launch prod-db');
      const gate = only(await k.core.approvals.list());
      const db = k.database.db;
      const requested = () =>
        db
          .select()
          .from(decisionAudit)
          .where(and(eq(decisionAudit.subjectId, gate.gateId), eq(decisionAudit.outcome, 'requested')));

      const [row] = await requested();
      expect(row).toMatchObject({
        kind: 'gate',
        actor: { platform: 'telegram', id: '42', operator: 'maya' },
        platform: 'telegram',
        decision: null,
        detail: gate.call.reason,
        eventKey: `requested:${gate.interruptId}`,
      });
      expect(row!.at.toISOString()).toBe(gate.createdAt.toISOString());

      // The opening's audit statement run again for the same gate (redelivered): the event key holds it back.
      const gateRow = (await getGate(db, gate.gateId))!;
      await auditRequest(db, gateRow);
      await db.transaction((tx) => auditRequest(tx, gateRow));
      expect(await requested()).toHaveLength(1);

      await k.core.pipeline.handle(tapEvent(k.surface.openCard()!.card, 'once', TG.ana, CHAT));
      await k.delivered();
      expect(tool.runs).toEqual([{ target: 'prod-db' }]);
      const steps = (await approvalRecords(db)).map((r) => [r.step, r.by, r.at === gate.createdAt.toISOString()]);
      expect(steps).toEqual([
        ['requested', 'maya', true],
        ['won', 'ana', false],
      ]);
    });
  });
}

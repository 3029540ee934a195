// An approval under a 2-approval policy that loses the count to a race, counts again, and loses again to the
// approval that completed the quorum meanwhile: its audit row says how it ended for good (lost, to `claimed`), and
// the export lists it after the win it lost to. The race is made deterministic by a trigger that, the moment the
// first round's `lost` row is written, does what the other approver's process would: completes the quorum.
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { approvalRecords } from '../../../src/core/approvals/export.ts';
import { gateFromRow } from '../../../src/core/approvals/gate-view.ts';
import { getGate } from '../../../src/core/approvals/gate-store.ts';
import { settleByQuorum } from '../../../src/core/approvals/quorum.ts';
import { CHAT, startTestCore, type TestCore } from '../../agent/helpers/core.ts';
import { startFakeLlm, type FakeLlm } from '../../fakes/llm-server.ts';
import { BACKENDS, freshDatabase, type FreshDatabase } from '../../helpers/databases.ts';
import { access, launch, launchTool, only, tapEvent, TG } from '../helpers.ts';

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});

const POLICY = {
  policies: [{ name: 'launches', match: { tools: ['launch'] }, approvals: 2 }],
  approvers: ['ana', 'ben', 'maya'],
};

/** The other process's winning approval, written when the racing loser's first `lost` row lands. */
const QUORUM_ELSEWHERE = [
  sql.raw(`create function complete_quorum_elsewhere() returns trigger language plpgsql as $$
  begin
    update approval_gates set state = 'claimed',
      approvals = approvals || '[{"operator":"ana","actor":{"platform":"telegram","id":"43"},"decision":"once","at":"2026-01-01T00:00:00.000Z"}]'::jsonb
      where id = new.subject_id;
    insert into decision_audit (kind, subject_id, actor, platform, decision, outcome, detail, at)
      values ('gate', new.subject_id, '{"platform":"telegram","id":"43","operator":"ana"}', 'telegram', 'once', 'won',
        'launches: 2 of 2', clock_timestamp());
    return null;
  end $$`),
  sql.raw(`create trigger complete_quorum_elsewhere after insert on decision_audit for each row
    when (new.outcome = 'lost' and new.detail = 'pending') execute function complete_quorum_elsewhere()`),
];

for (const backend of BACKENDS) {
  describe(`a count lost to a race, then to the quorum [${backend}]`, () => {
    let database: FreshDatabase | undefined;
    let core: TestCore | undefined;

    beforeEach(async () => {
      database = await freshDatabase(backend);
      core = await startTestCore({
        baseURL: llm.baseURL,
        database,
        config: { access: access(), approvals: POLICY },
        tools: [launchTool().tool],
      });
    });
    afterEach(async () => {
      await core?.close();
      await database?.dispose();
    });

    it('audits the attempt as lost to the state it really lost to, listed after the win', async () => {
      llm.script(launch({ target: 'prod-db' }));
      await core!.say('launch prod-db');
      const { gateId } = only(await core!.core.approvals.list());
      const db = database!.db;
      // Ben's process read the gate before maya's approval was counted.
      const stale = gateFromRow((await getGate(db, gateId))!);
      await core!.core.pipeline.handle(tapEvent(core!.surface.openCard()!.card, 'once', TG.maya, CHAT));
      await core!.delivered();
      for (const statement of QUORUM_ELSEWHERE) await db.execute(statement);

      const settled = await settleByQuorum(db, {
        request: { id: gateId, decision: 'once', actor: TG.ben, eventKey: 'telegram:ben-tap' },
        seen: stale,
        operator: 'ben',
        decidedBy: { platform: 'telegram', id: '44', operator: 'ben' },
        patch: {},
        notExpired: sql`true`,
        now: new Date(),
      });
      expect(settled.won).toBe(false);
      expect(settled.question?.state).toBe('claimed');

      const steps = (await approvalRecords(db)).map((r) => [r.step, r.by, r.detail]);
      expect(steps).toEqual([
        ['requested', 'maya', expect.any(String)],
        ['counted', 'maya', 'launches: 1 of 2'],
        ['won', 'ana', 'launches: 2 of 2'],
        ['lost', 'ben', 'claimed'],
      ]);
    });
  });
}

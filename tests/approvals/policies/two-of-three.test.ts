// N of M: a policy asking two approvals. The call runs once, after the second distinct operator; the same operator
// twice counts once; a Deny settles it at once; three approvers tapping together on two cores (two processes on one
// database) run it exactly once. Every step is audited.
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { approvalGates } from '../../../src/core/db/schema/approvals.ts';
import { CHAT, startTestCore, type TestCore } from '../../agent/helpers/core.ts';
import { startFakeLlm, type FakeLlm } from '../../fakes/llm-server.ts';
import { BACKENDS, freshDatabase, type FreshDatabase } from '../../helpers/databases.ts';
import { access, audit, auditCounts, field, launch, launchTool, only, tapEvent, TG, toolResults } from '../helpers.ts';

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});

const POLICY = {
  policies: [{ name: 'launches', match: { tools: ['launch'], args: { target: '^prod' } }, approvals: 2 }],
  approvers: ['ana', 'ben', 'cy', 'maya'],
};

for (const backend of BACKENDS) {
  describe(`two approvals of a policy [${backend}]`, () => {
    let database: FreshDatabase | undefined;
    let a: TestCore | undefined;
    let b: TestCore | undefined;
    let tool: ReturnType<typeof launchTool>;

    beforeEach(async () => {
      llm.requests.length = 0;
      tool = launchTool();
      database = await freshDatabase(backend);
      const config = { access: access(), approvals: POLICY };
      a = await startTestCore({ baseURL: llm.baseURL, database, config, tools: [tool.tool] });
      b = await startTestCore({ baseURL: llm.baseURL, database, config, tools: [tool.tool], surface: a.surface });
    });
    afterEach(async () => {
      await a?.close();
      await b?.close();
      await database?.dispose();
    });

    const ask = async (target = 'prod-db') => {
      llm.script(launch({ target }));
      await a!.say(`launch ${target}`);
      return { gate: only(await a!.core.approvals.list()), card: a!.surface.openCard()! };
    };

    it('the first approval is counted and shown; the same operator again counts once; the second runs it', async () => {
      const { gate, card } = await ask();
      expect(field(card.card, 'Approvals')).toBe('0 of 2 approvals (policy launches)');

      await a!.core.pipeline.handle(tapEvent(card.card, 'once', TG.maya, CHAT));
      await a!.delivered();
      expect(tool.runs).toEqual([]);
      expect(a!.surface.privately.at(-1)).toMatchObject({
        actor: TG.maya,
        text: 'Your approval is counted: 1 of 2 approvals — maya ✅. launch runs after 1 more.',
      });
      const shown = card.edits.at(-1)!;
      expect(field(shown, 'Approvals')).toBe('1 of 2 approvals — maya ✅ (policy launches)');
      expect(shown.buttons.map((x) => x.label)).toEqual(['Approve', 'Always', 'Deny']);

      // maya again, from the other process: told, counted once, nothing runs.
      await b!.core.pipeline.handle(tapEvent(card.card, 'once', TG.maya, CHAT));
      await b!.delivered();
      expect(a!.surface.privately.at(-1)!.text).toBe(
        'You already approved this; you count once: 1 of 2 approvals — maya ✅.',
      );
      expect(tool.runs).toEqual([]);

      await b!.core.pipeline.handle(tapEvent(card.card, 'once', TG.ana, CHAT));
      await b!.delivered();
      await a!.delivered();
      expect(tool.runs).toEqual([{ target: 'prod-db' }]);
      const [row] = await database!.db.select().from(approvalGates).where(eq(approvalGates.id, gate.gateId));
      expect(row).toMatchObject({ state: 'settled', decision: 'once', decidedBy: { operator: 'ana' } });
      expect(row!.approvals.map((x) => x.operator)).toEqual(['maya', 'ana']);
      expect(field(card.edits.at(-1)!, 'Approvals')).toBe('2 of 2 approvals — maya ✅ ana ✅ (policy launches)');
      expect(card.edits.at(-1)!.buttons).toEqual([]);
      expect((await audit(database!.db, gate.gateId)).map((r) => [r.outcome, r.actor?.operator, r.detail])).toEqual([
        ['counted', 'maya', 'launches: 1 of 2'],
        ['duplicate', 'maya', 'maya had already approved'],
        ['won', 'ana', 'launches: 2 of 2'],
      ]);
    });

    it('a Deny after one approval settles it as denied; nothing runs and the model is told', async () => {
      const { gate, card } = await ask();
      await a!.core.pipeline.handle(tapEvent(card.card, 'once', TG.maya, CHAT));
      await a!.core.pipeline.handle(tapEvent(card.card, 'deny', TG.ben, CHAT));
      await a!.delivered();
      expect(tool.runs).toEqual([]);
      expect(toolResults(llm.requests.at(-1))).toEqual([
        expect.stringMatching(/^denied by ben\. The call did not run/),
      ]);
      expect(await auditCounts(database!.db, gate.gateId)).toEqual({ counted: 1, won: 1 });
      await a!.core.pipeline.handle(tapEvent(card.card, 'once', TG.cy, CHAT));
      expect(a!.surface.privately.at(-1)!.text).toMatch(/^Already decided: Denied by ben on Telegram/);
      expect(tool.runs).toEqual([]);
    });

    it('a call the policy does not match is decided by one approval', async () => {
      const { card } = await ask('staging');
      expect(card.card.fields.some((f) => f.label === 'Approvals')).toBe(false);
      await a!.core.pipeline.handle(tapEvent(card.card, 'once', TG.maya, CHAT));
      await a!.delivered();
      expect(tool.runs).toEqual([{ target: 'staging' }]);
    });

    it('three approvers tapping at once on two processes: it runs exactly once', async () => {
      const { gate, card } = await ask();
      const taps = [TG.maya, TG.ana, TG.ben, TG.maya, TG.cy, TG.ana];
      await Promise.all(
        taps.map((actor, i) => (i % 2 === 0 ? a! : b!).core.pipeline.handle(tapEvent(card.card, 'once', actor, CHAT))),
      );
      await a!.delivered();
      await b!.delivered();
      expect(tool.runs).toEqual([{ target: 'prod-db' }]);
      const counts = await auditCounts(database!.db, gate.gateId);
      expect(counts.won).toBe(1);
      expect(counts.counted).toBe(1);
      expect(Object.values(counts).reduce((x, y) => x + y, 0)).toBe(taps.length);
      // Each attempt's row tells how it ended for good: a loser of a count race that counted again and lost to the
      // quorum names the state it lost to (never the `pending` of the race), and is listed after the win.
      const steps = await audit(database!.db, gate.gateId);
      const lost = steps.filter((s) => s.outcome === 'lost');
      expect(lost.map((s) => s.detail)).not.toContain('pending');
      const won = steps.findIndex((s) => s.outcome === 'won');
      expect(steps.slice(0, won).map((s) => s.outcome)).not.toContain('lost');
      const [row] = await database!.db.select().from(approvalGates).where(eq(approvalGates.id, gate.gateId));
      expect(row!.approvals).toHaveLength(2);
      expect(new Set(row!.approvals.map((x) => x.operator)).size).toBe(2);
      expect(llm.requests).toHaveLength(2);
    });

    it('"Always" under two approvals needs both, and its grant covers only a call asking no more', async () => {
      const { card } = await ask();
      await a!.core.pipeline.handle(tapEvent(card.card, 'always', TG.maya, CHAT));
      await a!.delivered();
      expect(tool.runs).toEqual([]);
      expect(await a!.core.approvals.grants()).toEqual([]);
      await a!.core.pipeline.handle(tapEvent(card.card, 'always', TG.ana, CHAT));
      await a!.delivered();
      expect(tool.runs).toHaveLength(1);
      expect(await a!.core.approvals.grants()).toHaveLength(1);
      // The same call again runs on the grant; another argument asks again.
      llm.script(launch({ target: 'prod-db' }));
      await a!.say('again');
      expect(tool.runs).toHaveLength(2);
      llm.script(launch({ target: 'prod-web' }));
      await a!.say('the web one');
      expect(await a!.core.approvals.list()).toHaveLength(1);
      expect(tool.runs).toHaveLength(2);
    });
  });
}

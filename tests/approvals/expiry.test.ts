// approvals.timeout: a question nobody answers in time expires exactly once, however many sweeps run
// at once in however many processes; the paused turn is resumed with a denial and the tool never runs.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CHAT, startTestCore, transcript, type TestCore } from '../agent/helpers/core.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { BACKENDS, freshDatabase, type FreshDatabase } from '../helpers/databases.ts';
import {
  access,
  auditCounts,
  hhmm,
  launch,
  launchTool,
  only,
  tapEvent,
  TG,
  toolResults,
  toolRounds,
} from './helpers.ts';

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});

const EXPIRED_RESULT =
  'denied: the approval expired: nobody decided in time. The call did not run; do not retry it unchanged.';

for (const backend of BACKENDS) {
  describe(`approvals.timeout [${backend}]`, () => {
    let database: FreshDatabase | undefined;
    let a: TestCore | undefined;
    let b: TestCore | undefined;
    let tool: ReturnType<typeof launchTool>;

    beforeEach(async () => {
      llm.requests.length = 0;
      tool = launchTool();
      database = await freshDatabase(backend);
      const config = { access: access(), approvals: { timeout: '1s' } };
      a = await startTestCore({ baseURL: llm.baseURL, database, config, tools: [tool.tool] });
      b = await startTestCore({ baseURL: llm.baseURL, database, config, tools: [tool.tool], surface: a.surface });
    });
    afterEach(async () => {
      await a?.close();
      await b?.close();
      await database?.dispose();
    });

    it('concurrent sweeps in two cores expire the gate once, resume the turn with a denial, and close the card', async () => {
      const [one, two] = [a!, b!];
      llm.script(launch({ target: 'mars' }));
      await one.say('launch to mars');
      const gate = only(await one.core.approvals.list());
      const card = one.surface.openCard()!;

      // Before its time, a sweep leaves it alone.
      expect(await one.core.reconciler.sweep()).toEqual({ expired: 0, healed: 0 });
      expect((await one.core.approvals.get(gate.gateId))?.state).toBe('pending');

      await new Promise((r) => setTimeout(r, Math.max(0, gate.expiresAt.getTime() - Date.now()) + 50));
      const sweeps = await Promise.all([one, two, one, two, one, two].map((core) => core.core.reconciler.sweep()));
      await one.delivered();

      expect(sweeps.reduce((n, s) => n + s.expired, 0)).toBe(1);
      expect(await auditCounts(database!.db, gate.gateId)).toEqual({ expired: 1 });
      expect((await one.core.approvals.get(gate.gateId))?.state).toBe('timeout');

      // The turn was resumed once, with a denial the model can read; the user is told.
      expect(toolRounds(llm.requests)).toBe(1);
      expect(toolResults(llm.requests.at(-1))).toEqual([EXPIRED_RESULT]);
      expect(transcript(llm.requests.at(-1)!).at(-1)).toBe(`tool:${EXPIRED_RESULT}`);
      const texts = one.surface.texts();
      expect(texts.filter((x) => x.startsWith('⏰'))).toEqual([
        '⏰ Nobody approved `launch` in time, so it was not run.',
      ]);
      expect(texts.at(-1)).toBe(`done: ${EXPIRED_RESULT}`);
      expect(await two.core.runner.inspect(CHAT)).toMatchObject({ next: [], questions: 0 });

      // Every card says so, once; the tool never ran.
      const expired = `Expired at ${hhmm(gate.expiresAt)}: nobody decided in time, so it was not run`;
      expect(card.edits.map((c) => [c.footer, c.buttons.length])).toEqual([[expired, 0]]);
      expect(tool.runs).toHaveLength(0);

      // A late tap, in either process, is told the question is closed, and nothing runs.
      for (const core of [one, two]) await core.core.pipeline.handle(tapEvent(card.card, 'once', TG.ana, CHAT));
      await one.delivered();
      expect(one.surface.privately.map((p) => p.text)).toEqual([
        `This question is closed. ${expired}.`,
        `This question is closed. ${expired}.`,
      ]);
      expect(await auditCounts(database!.db, gate.gateId)).toEqual({ expired: 1, lost: 2 });
      expect(tool.runs).toHaveLength(0);
      expect(toolRounds(llm.requests)).toBe(1);

      // Later sweeps find nothing more to do.
      expect(await two.core.reconciler.sweep()).toEqual({ expired: 0, healed: 0 });
      expect(card.edits).toHaveLength(1);
    });

    it('a tap after the timeout, before any sweep has expired the gate, is refused and the tool never runs', async () => {
      llm.script(launch({ target: 'mars' }));
      await a!.say('launch to mars');
      const gate = only(await a!.core.approvals.list());
      const card = a!.surface.openCard()!;
      await new Promise((r) => setTimeout(r, Math.max(0, gate.expiresAt.getTime() - Date.now()) + 50));
      // No sweep ran (it runs every runs.sweep_interval, and not at all while Redis is down): still pending.
      expect((await a!.core.approvals.get(gate.gateId))?.state).toBe('pending');

      // Before the fix the tap won the compare-and-set and launch ran.
      await a!.core.pipeline.handle(tapEvent(card.card, 'once', TG.ana, CHAT));
      await a!.delivered();
      expect(tool.runs).toHaveLength(0);
      expect((await a!.core.approvals.get(gate.gateId))?.state).toBe('pending');
      expect(a!.surface.privately.map((p) => p.text)).toEqual([
        'This question is closed: nobody decided within the approval timeout, so launch will not run.',
      ]);
      expect(await auditCounts(database!.db, gate.gateId)).toEqual({ lost: 1 });
      // /approve and the HTTP API decide through the same statement.
      expect(await a!.core.approvals.decide({ gateId: gate.gateId, decision: 'once', actor: TG.ana })).toMatchObject({
        ok: false,
      });
      expect(tool.runs).toHaveLength(0);

      // The sweep then expires it as usual: the turn is resumed with a denial, the card closed.
      expect(await a!.core.reconciler.sweep()).toMatchObject({ expired: 1 });
      await a!.delivered();
      expect(toolResults(llm.requests.at(-1))).toEqual([EXPIRED_RESULT]);
      expect(card.edits.at(-1)?.buttons).toEqual([]);
      expect(tool.runs).toHaveLength(0);
    });
  });
}

// The reconciler heals what a process that died mid-decision leaves behind (simulated in-process with
// the same compare-and-set the broker uses): a claimed or resuming gate whose checkpoint still waits
// is resumed exactly once; one whose graph moved on is settled or marked error, and nothing runs.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Gate } from '../../src/core/approvals/port.ts';
import { transitionGate } from '../../src/core/approvals/transition.ts';
import { CHAT, startTestCore, type TestCore } from '../agent/helpers/core.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { BACKENDS, freshDatabase, type FreshDatabase } from '../helpers/databases.ts';
import { access, hhmm, launch, launchTool, only, toolResults, toolRounds } from './helpers.ts';

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});

const DECIDED = {
  decision: 'once' as const,
  decidedBy: { platform: 'telegram', id: '42', operator: 'maya' },
  decidedPlatform: 'telegram',
};

for (const backend of BACKENDS) {
  describe(`approval reconciler [${backend}]`, () => {
    let database: FreshDatabase | undefined;
    let a: TestCore | undefined;
    let tool: ReturnType<typeof launchTool>;

    beforeEach(async () => {
      llm.requests.length = 0;
      tool = launchTool();
      database = await freshDatabase(backend);
      const config = { access: access(), approvals: { lease_ttl: '0s' } };
      a = await startTestCore({ baseURL: llm.baseURL, database, config, tools: [tool.tool] });
    });
    afterEach(async () => {
      await a?.close();
      await database?.dispose();
    });

    /** A real turn pauses on a question; a process then "dies" after moving its gate to `to`. */
    const leftBehind = async (to: 'claimed' | 'resuming'): Promise<{ gate: Gate; claimedAt: Date }> => {
      llm.script(launch({ target: 'saturn' }));
      await a!.say('launch to saturn');
      const gate = only(await a!.core.approvals.list());
      const claimedAt = new Date(Date.now() - 60_000);
      expect(
        (
          await transitionGate(database!.db, {
            id: gate.gateId,
            from: 'pending',
            to: 'claimed',
            patch: { ...DECIDED, claimedAt },
          })
        ).ok,
      ).toBe(true);
      if (to === 'resuming')
        expect((await transitionGate(database!.db, { id: gate.gateId, from: 'claimed', to: 'resuming' })).ok).toBe(
          true,
        );
      return { gate, claimedAt };
    };
    /** Two sweeps at once, as the start-up sweep and a scheduled one may overlap. */
    const sweepTwice = async () => {
      const results = await Promise.all([a!.core.reconciler.sweep(), a!.core.reconciler.sweep()]);
      await a!.delivered();
      return results;
    };
    const stateOf = async (gateId: string) => (await a!.core.approvals.get(gateId))?.state;
    const footers = () => a!.surface.cards.flatMap((c) => c.edits.map((e) => e.footer));

    it('a claimed gate whose checkpoint still waits is resumed exactly once and settled', async () => {
      const { gate, claimedAt } = await leftBehind('claimed');
      expect(await a!.core.runner.waitingOn(gate.threadId)).toEqual([gate.interruptId]);
      await sweepTwice();

      expect(await stateOf(gate.gateId)).toBe('settled');
      expect(tool.runs).toEqual([{ target: 'saturn' }]);
      expect(toolRounds(llm.requests)).toBe(1);
      expect(toolResults(llm.requests.at(-1))).toEqual(['launched saturn']);
      expect(a!.surface.texts().filter((x) => x === 'done: launched saturn')).toHaveLength(1);
      expect(await a!.core.runner.inspect(CHAT)).toMatchObject({ next: [], questions: 0 });
      // The card the dead process never got to edit now shows the outcome.
      expect(footers()).toEqual([`Approved once by maya on Telegram at ${hhmm(claimedAt)}`]);

      await sweepTwice(); // nothing left to heal
      expect(tool.runs).toHaveLength(1);
      expect(toolRounds(llm.requests)).toBe(1);
    });

    it('sweeps in two processes at once: one takes the gate over, the resume runs once', async () => {
      const { gate } = await leftBehind('resuming');
      const b = await startTestCore({
        baseURL: llm.baseURL,
        database,
        surface: a!.surface,
        config: { access: access(), approvals: { lease_ttl: '0s' } },
        tools: [tool.tool],
      });
      try {
        await Promise.all([
          a!.core.reconciler.sweep(),
          b.core.reconciler.sweep(),
          a!.core.reconciler.sweep(),
          b.core.reconciler.sweep(),
        ]);
        await a!.delivered();
        expect(await stateOf(gate.gateId)).toBe('settled');
        expect(tool.runs).toEqual([{ target: 'saturn' }]);
        expect(toolRounds(llm.requests)).toBe(1);
      } finally {
        await b.close();
      }
    });

    it('a resuming gate whose checkpoint still waits is resumed exactly once and settled', async () => {
      const { gate, claimedAt } = await leftBehind('resuming');
      await sweepTwice();

      expect(await stateOf(gate.gateId)).toBe('settled');
      expect(tool.runs).toEqual([{ target: 'saturn' }]);
      expect(toolRounds(llm.requests)).toBe(1);
      expect(a!.surface.texts().filter((x) => x === 'done: launched saturn')).toHaveLength(1);
      expect(await a!.core.runner.inspect(CHAT)).toMatchObject({ next: [], questions: 0 });
      expect(footers()).toEqual([`Approved once by maya on Telegram at ${hhmm(claimedAt)}`]);
    });

    it('a resuming gate whose graph already moved on is settled without running anything', async () => {
      const { gate, claimedAt } = await leftBehind('resuming');
      // The dead process had resumed the graph (the tool ran) but died before recording `settled`.
      await a!.core.runner.resumeClaimed(
        { ...gate, gateId: 'not-this-gate' },
        { decision: 'once', by: 'maya' },
        { alreadyResuming: true },
      );
      expect(tool.runs).toHaveLength(1);
      expect(await stateOf(gate.gateId)).toBe('resuming');
      const [requests, texts] = [llm.requests.length, a!.surface.texts().length];

      await sweepTwice();
      expect(await stateOf(gate.gateId)).toBe('settled');
      expect(tool.runs).toHaveLength(1);
      expect(llm.requests).toHaveLength(requests);
      expect(a!.surface.texts()).toHaveLength(texts);
      expect(footers()).toEqual([`Approved once by maya on Telegram at ${hhmm(claimedAt)}`]);
    });

    it('a claimed gate whose thread moved on (a new message came first) ends in error, and nothing runs', async () => {
      const { gate, claimedAt } = await leftBehind('claimed');
      await a!.say('forget it, just say hi');
      expect(await a!.core.runner.waitingOn(gate.threadId)).toEqual([]);
      const [requests, texts] = [llm.requests.length, a!.surface.texts().length];

      await sweepTwice();
      const after = await a!.core.approvals.get(gate.gateId);
      expect(after).toMatchObject({
        state: 'error',
        error: 'the conversation moved on before this decision could be applied',
      });
      expect(footers()).toEqual([
        `Approved once by maya on Telegram at ${hhmm(claimedAt)}, but resuming failed: the conversation moved on before this decision could be applied`,
      ]);
      expect(tool.runs).toHaveLength(0);
      expect(llm.requests).toHaveLength(requests);
      expect(a!.surface.texts()).toHaveLength(texts);
    });
  });
}

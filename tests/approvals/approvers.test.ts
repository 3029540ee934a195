// Who may decide: only operators, narrowed by approvals.approvers, and not the requester when
// approvals.requester_may_approve is false. Every refusal is private, audited, and leaves the gate
// pending. The /approve and /deny text commands decide like the buttons; a deny reason reaches the model.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Actor, ChatRef } from '../../src/core/surface/index.ts';
import { CHAT, startTestCore, type TestCore } from '../agent/helpers/core.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { BACKENDS, type Backend } from '../helpers/databases.ts';
import { access, audit, field, launch, launchTool, only, tapEvent, TG, toolResults } from './helpers.ts';

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});

const STRANGER: Actor = { platform: 'telegram', id: '555' };

for (const backend of BACKENDS) {
  describe(`who may decide [${backend}]`, () => {
    let t: TestCore | undefined;
    let tool: ReturnType<typeof launchTool>;
    beforeEach(() => {
      llm.requests.length = 0;
      tool = launchTool();
    });
    afterEach(async () => {
      await t?.close();
      t = undefined;
    });

    const start = async (approvals: Record<string, unknown> = {}) => {
      t = await startTestCore({
        baseURL: llm.baseURL,
        backend: backend as Backend,
        tools: [tool.tool],
        config: { access: access(['telegram:555']), approvals },
      });
      return t;
    };
    /** Asks for a launch as `requester` and returns the open gate and its card. */
    const ask = async (core: TestCore, requester: Actor = TG.maya) => {
      llm.script(launch({ target: 'moon' }));
      await core.say('launch to the moon', { actor: requester });
      return { gate: only(await core.core.approvals.list()), card: core.surface.openCard()! };
    };
    const tap = async (
      core: TestCore,
      card: ReturnType<typeof core.surface.openCard>,
      actor: Actor,
      chat: ChatRef = CHAT,
    ) => {
      await core.core.pipeline.handle(tapEvent(card!.card, 'once', actor, chat));
      await core.delivered();
    };
    const stateOf = async (core: TestCore, gateId: string) => (await core.core.approvals.get(gateId))?.state;

    it('a non-operator is refused privately, audited with actor and platform, and the gate stays pending', async () => {
      const core = await start();
      const { gate, card } = await ask(core, STRANGER);
      await tap(core, card, STRANGER);
      expect(core.surface.privately).toEqual([
        { chat: CHAT, actor: STRANGER, text: 'You cannot decide this: only operators may approve tool calls.' },
      ]);
      expect(await audit(core.database.db, gate.gateId)).toMatchObject([
        {
          outcome: 'refused',
          platform: 'telegram',
          actor: { platform: 'telegram', id: '555' },
          decision: 'once',
          detail: 'only operators may approve tool calls',
        },
      ]);
      expect(await stateOf(core, gate.gateId)).toBe('pending');
      expect(card.edits).toHaveLength(0);
      expect(tool.runs).toHaveLength(0);
      expect(llm.requests).toHaveLength(1);

      await tap(core, card, TG.ana); // still decidable by an operator
      expect(await stateOf(core, gate.gateId)).toBe('settled');
      expect(tool.runs).toHaveLength(1);
    });

    it('approvals.approvers narrows who may decide: an operator not listed is refused', async () => {
      const core = await start({ approvers: ['maya', 'ana'] });
      const { gate, card } = await ask(core);
      await tap(core, card, TG.ben);
      expect(core.surface.privately.map((p) => [p.actor.id, p.text])).toEqual([
        ['44', 'You cannot decide this: ben is not in approvals.approvers.'],
      ]);
      expect(await stateOf(core, gate.gateId)).toBe('pending');
      expect(tool.runs).toHaveLength(0);

      await tap(core, card, TG.ana);
      expect(await stateOf(core, gate.gateId)).toBe('settled');
      expect(card.edits.at(-1)?.footer).toMatch(/^Approved once by ana on Telegram at \d\d:\d\d UTC$/);
      expect(
        (await audit(core.database.db, gate.gateId)).map((r) => [r.outcome, r.actor?.operator, r.platform]),
      ).toEqual([
        ['refused', 'ben', 'telegram'],
        ['won', 'ana', 'telegram'],
      ]);
      expect(tool.runs).toHaveLength(1);
    });

    it('requester_may_approve: false refuses the requester on every platform; another operator wins', async () => {
      const core = await start({ requester_may_approve: false });
      const slack = new RecordingSurface('slack');
      core.core.attachSurface(slack);
      const { gate, card } = await ask(core, TG.maya);
      await tap(core, card, TG.maya);
      await tap(core, card, { platform: 'slack', id: 'U0123ABC' }, 'slack:C0123'); // maya again, from Slack
      const refusal = 'You cannot decide this: approvals.requester_may_approve is false: another operator must decide.';
      expect(core.surface.privately.map((p) => p.text)).toEqual([refusal]);
      expect(slack.privately.map((p) => p.text)).toEqual([refusal]);
      expect(await stateOf(core, gate.gateId)).toBe('pending');
      expect(tool.runs).toHaveLength(0);

      await tap(core, card, TG.cy);
      expect(
        (await audit(core.database.db, gate.gateId)).map((r) => [r.outcome, r.actor?.operator, r.platform]),
      ).toEqual([
        ['refused', 'maya', 'telegram'],
        ['refused', 'maya', 'slack'],
        ['won', 'cy', 'telegram'],
      ]);
      expect(card.edits.at(-1)?.footer).toMatch(/^Approved once by cy on Telegram/);
      expect(tool.runs).toEqual([{ target: 'moon' }]);
    });

    it('/deny <gate> <reason> denies, and the reason reaches the model in the tool message', async () => {
      const core = await start();
      const { gate, card } = await ask(core);
      expect(field(card.card, 'By text')).toBe(`/approve ${gate.gateId} · /deny ${gate.gateId} <reason>`);
      await core.say(`/deny ${gate.gateId} not on a Friday, please`, { actor: TG.ana });
      expect(await stateOf(core, gate.gateId)).toBe('settled');
      expect(tool.runs).toHaveLength(0);
      expect(toolResults(llm.requests.at(-1))).toEqual([
        'denied by ana: not on a Friday, please. The call did not run; do not retry it unchanged.',
      ]);
      expect(core.surface.texts()).toContain('Denied launch.');
      expect(card.edits.at(-1)?.footer).toMatch(
        /^Denied by ana on Telegram at \d\d:\d\d UTC: not on a Friday, please$/,
      );
      expect(await audit(core.database.db, gate.gateId)).toMatchObject([
        { outcome: 'won', decision: 'deny', detail: 'not on a Friday, please' },
      ]);
    });

    it('/approve <gate> refuses a non-operator, approves once for an operator, and answers a late /approve with the real state', async () => {
      const core = await start();
      const { gate, card } = await ask(core);
      await core.say(`/approve ${gate.gateId}`, { actor: STRANGER });
      // Answered once, privately, like a refused tap: never as a message to the whole chat.
      expect(core.surface.privately.at(-1)?.text).toBe(
        'You cannot decide this: only operators may approve tool calls.',
      );
      expect(core.surface.texts().filter((t) => t.startsWith('You cannot decide'))).toEqual([]);
      expect(await stateOf(core, gate.gateId)).toBe('pending');
      await core.say(`/approve ${gate.gateId}`, { actor: TG.ben });
      expect(tool.runs).toEqual([{ target: 'moon' }]);
      expect(toolResults(llm.requests.at(-1))).toEqual(['launched moon']);
      expect(core.surface.texts()).toContain('Approved launch.');
      expect(card.edits.at(-1)?.footer).toMatch(/^Approved once by ben on Telegram/);
      await core.say(`/approve ${gate.gateId}`, { actor: TG.cy });
      expect(core.surface.privately.at(-1)?.text).toMatch(
        /^Already decided: Approved once by ben on Telegram at \d\d:\d\d UTC\.$/,
      );
      expect(core.surface.texts().filter((t) => t.startsWith('Already decided'))).toEqual([]);
      expect(tool.runs).toHaveLength(1);
    });
  });
}

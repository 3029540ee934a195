// `/approvals` shows a waiting question again as a card owned by its gate (through the outbox), so
// when the question is decided the re-posted card is edited to the outcome like every other card.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { outboxOfOwner } from '../../src/core/outbox/index.ts';
import { CHAT, startTestCore, type TestCore } from '../agent/helpers/core.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { BACKENDS } from '../helpers/databases.ts';
import { access, launch, launchTool, only } from './helpers.ts';

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});

for (const backend of BACKENDS) {
  describe(`/approvals re-posts cards that settle like the others [${backend}]`, () => {
    let t: TestCore | undefined;
    let tool: ReturnType<typeof launchTool>;

    beforeEach(async () => {
      llm.requests.length = 0;
      tool = launchTool();
      t = await startTestCore({ baseURL: llm.baseURL, backend, tools: [tool.tool], config: { access: access() } });
    });
    afterEach(async () => {
      await t?.close();
      t = undefined;
    });

    it('a decision on the re-posted card edits it and the original to the outcome', async () => {
      const core = t!;
      llm.script(launch({ target: 'titan' }));
      await core.say('launch to titan');
      const gate = only(await core.core.approvals.list());

      await core.say('/approvals');
      expect(core.surface.texts()).toContain('1 approval waiting in this chat:');
      expect(core.surface.cards.map((c) => [c.ref.chat, c.card.title, c.card.buttons.length])).toEqual([
        [CHAT, 'Approve launch?', 3],
        [CHAT, 'Approve launch?', 3],
      ]);
      // Both cards belong to the gate in the outbox, each with the message it became.
      const cards = (await outboxOfOwner(core.database.db, { kind: 'gate', id: gate.gateId })).filter(
        (r) => r.kind === 'card',
      );
      expect(cards.map((r) => [r.destination, r.state])).toEqual([
        [CHAT, 'sent'],
        [CHAT, 'sent'],
      ]);
      expect(cards.map((r) => r.messageRef)).toEqual(core.surface.cards.map((c) => c.ref));

      const [original, again] = core.surface.cards;
      await core.tap('once', { card: again!.card });
      for (const sent of [original!, again!]) {
        expect(sent.edits).toHaveLength(1);
        expect(sent.edits[0]).toMatchObject({
          title: 'Approval: launch',
          buttons: [],
          footer: expect.stringMatching(/^Approved once by maya on Telegram at \d\d:\d\d UTC$/),
        });
      }
      expect(tool.runs).toEqual([{ target: 'titan' }]);
    });

    it('a question that expires after a re-post expires on both cards', async () => {
      const core = t!;
      llm.script(launch({ target: 'io' }));
      await core.say('launch to io');
      await core.say('/approvals');
      expect(core.surface.cards).toHaveLength(2);

      await core.core.approvals.expire(new Date(Date.now() + 24 * 3600_000));
      await core.delivered();
      for (const sent of core.surface.cards) expect(sent.edits.at(-1)?.footer).toMatch(/^Expired at /);
      expect(tool.runs).toEqual([]);
    });

    it('does not re-post a question that is no longer waiting', async () => {
      const core = t!;
      llm.script(launch({ target: 'europa' }));
      await core.say('launch to europa');
      const gate = only(await core.core.approvals.list());
      await core.tap('deny');

      expect(await core.core.approvals.repost(gate.gateId, CHAT)).toBe(false);
      await core.delivered();
      expect(core.surface.cards).toHaveLength(1);
      expect(
        (await outboxOfOwner(core.database.db, { kind: 'gate', id: gate.gateId })).filter((r) => r.kind === 'card'),
      ).toHaveLength(1);
    });
  });
}

// "Always": the same call (same tool, same argv) in the same chat runs without a card until the grant
// expires or is revoked; a different command or a different chat asks again.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatRef } from '../../src/core/surface/index.ts';
import { CHAT, startTestCore, type TestCore } from '../agent/helpers/core.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { BACKENDS } from '../helpers/databases.ts';
import { access, field, only, shell, TG, toolResults } from './helpers.ts';

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});

const GROUP: ChatRef = 'telegram:-100777';

for (const backend of BACKENDS) {
  describe(`"always" grants [${backend}]`, () => {
    let t: TestCore | undefined;
    beforeEach(() => {
      llm.requests.length = 0;
    });
    afterEach(async () => {
      await t?.close();
      t = undefined;
    });

    const start = async (approvals: Record<string, unknown> = {}) => {
      t = await startTestCore({
        baseURL: llm.baseURL,
        backend,
        config: { access: access(['telegram:555']), approvals },
      });
      return t;
    };
    /** The model asks to run `command` in `chat`; returns how many cards that chat has seen so far. */
    const run = async (core: TestCore, command: string, chat: ChatRef = CHAT) => {
      llm.script(shell(command));
      await core.say(`please run ${command}`, { chat });
      return core.surface.cards.filter((c) => c.ref.chat === chat).length;
    };
    const grantAlways = async (core: TestCore, command: string) => {
      expect(await run(core, command)).toBe(1);
      await core.tap('always');
      expect(core.surface.texts().at(-1)).toBe('done: hi');
    };
    const reply = async (core: TestCore, text: string) => {
      await core.say(text);
      return core.surface.texts().at(-1)!;
    };

    it('the identical call in the same chat runs without a card; another argv or another chat asks again', async () => {
      const core = await start();
      await grantAlways(core, 'echo hi');

      expect(await run(core, 'echo hi')).toBe(1); // no new card
      expect(core.surface.texts().at(-1)).toBe('done: hi');
      expect(toolResults(llm.requests.at(-1)).at(-1)).toBe('hi');

      expect(await run(core, 'echo bye')).toBe(2); // same program, other arguments: asks
      expect(field(core.surface.openCard()!.card, 'Arguments')).toContain('echo bye');
      await core.tap('deny');
      expect(core.surface.texts().at(-1)).toMatch(/^done: denied by maya/);

      expect(await run(core, 'echo hi', GROUP)).toBe(1); // same call, other chat: asks
      const card = core.surface.cards.at(-1)!;
      expect(card.ref.chat).toBe(GROUP);
      expect(card.card.buttons).toHaveLength(3);
      expect(only(await core.core.approvals.list({ chat: GROUP })).call.args).toEqual({ command: 'echo hi' });
      expect(await core.core.approvals.grants()).toHaveLength(1);
    });

    it('a grant ends after approvals.grant_ttl, and the call asks again', async () => {
      const core = await start({ grant_ttl: '1s' });
      await grantAlways(core, 'echo hi');
      const [grant] = await core.core.approvals.grants(CHAT);
      expect(grant).toMatchObject({ chat: CHAT, tool: 'shell', grantedBy: 'maya' });
      const left = grant!.expiresAt.getTime() - Date.now();
      expect(left).toBeLessThanOrEqual(1000);
      await new Promise((r) => setTimeout(r, Math.max(0, left) + 100));

      expect(await reply(core, '/approvals grants')).toBe('No "always" grants are in force in this chat.');
      expect(await run(core, 'echo hi')).toBe(2);
      expect(core.surface.openCard()?.card.title).toBe('Approve shell?');
    });

    it('/approvals grants lists the grant and /approvals revoke <id> ends it', async () => {
      const core = await start();
      await grantAlways(core, 'echo hi');
      const listing = await reply(core, '/approvals grants');
      const id = /^(gr_[A-Za-z0-9_-]+) — shell by maya, until \d\d:\d\d UTC$/m.exec(listing)?.[1];
      expect(listing.split('\n')).toEqual([
        '"Always" grants in this chat:',
        expect.stringMatching(/^gr_/),
        'End one with /approvals revoke <id>.',
      ]);
      expect(id).toBeDefined();

      expect(await run(core, 'echo hi')).toBe(1); // still in force
      expect(await reply(core, `/approvals revoke ${id}`)).toBe(`Revoked ${id}: that call will ask again.`);
      expect(await reply(core, '/approvals grants')).toBe('No "always" grants are in force in this chat.');
      expect(await run(core, 'echo hi')).toBe(2);
      await core.tap('once');
      expect(core.surface.texts().at(-1)).toBe('done: hi');
      expect(await reply(core, `/approvals revoke ${id}`)).toBe(`No grant ${id} is in force.`);
    });

    it('only an operator may revoke, and a grant in one chat is not listed in another', async () => {
      const core = await start();
      await grantAlways(core, 'echo hi');
      const [grant] = await core.core.approvals.grants(CHAT);
      await core.say('/approvals grants', { chat: GROUP, actor: TG.ana });
      expect(core.surface.texts().at(-1)).toBe('No "always" grants are in force in this chat.');
      await core.say(`/approvals revoke ${grant!.id}`, { actor: { platform: 'telegram', id: '555' } });
      expect(core.surface.texts().at(-1)).toBe('Only operators may revoke grants.');
      expect(await core.core.approvals.grants(CHAT)).toHaveLength(1);
      expect(await run(core, 'echo hi')).toBe(1);
    });
  });
}

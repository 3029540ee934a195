// 200 taps on one card at once, through two cores on one database (two processes): exactly one
// decision wins, every other tap is told who won, and the tool and the model see it once.
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Actor } from '../../src/core/surface/index.ts';
import { approvalGates } from '../../src/core/db/schema/approvals.ts';
import { CHAT, startTestCore, type TestCore } from '../agent/helpers/core.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { BACKENDS, freshDatabase, type FreshDatabase } from '../helpers/databases.ts';
import {
  access,
  audit,
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

type Decision = 'once' | 'deny';
const ACTORS: Actor[] = [TG.maya, TG.ana, TG.ben, TG.cy];
const NAMES: Record<string, string> = { '42': 'maya', '43': 'ana', '44': 'ben', '45': 'cy' };
const MIXES: Record<string, (i: number) => Decision> = {
  'mixed once/deny': (i) => (i % 3 === 0 ? 'deny' : 'once'),
  // The winner is whoever's CAS lands first; with every tap "once" the tool must have run exactly once.
  'all once': () => 'once',
};

for (const backend of BACKENDS) {
  describe(`200 concurrent decisions on one gate from two cores [${backend}]`, () => {
    let database: FreshDatabase | undefined;
    let a: TestCore | undefined;
    let b: TestCore | undefined;
    let tool: ReturnType<typeof launchTool>;

    beforeEach(async () => {
      llm.requests.length = 0;
      tool = launchTool();
      database = await freshDatabase(backend);
      const config = { access: access() };
      a = await startTestCore({ baseURL: llm.baseURL, database, config, tools: [tool.tool] });
      // The second process: same database, same platform (surface), its own core and outbox worker.
      b = await startTestCore({ baseURL: llm.baseURL, database, config, tools: [tool.tool], surface: a.surface });
    });
    afterEach(async () => {
      await a?.close();
      await b?.close();
      await database?.dispose();
    });

    it.each(Object.keys(MIXES))(
      '%s: one winner, 199 losers told who won, the tool and the model see it once',
      async (mix) => {
        const [one, two, db] = [a!, b!, database!.db];
        llm.script(launch({ target: 'rocket' }));
        await one.say('launch the rocket');
        const gate = only(await one.core.approvals.list());
        const card = one.surface.openCard()!;

        const taps = Array.from({ length: 200 }, (_, i) => ({
          actor: ACTORS[i % ACTORS.length]!,
          decision: MIXES[mix]!(i),
        }));
        const outcomes = await Promise.all(
          taps.map((tap, i) =>
            (i % 2 === 0 ? one : two).core.pipeline.handle(tapEvent(card.card, tap.decision, tap.actor, CHAT)),
          ),
        );
        await one.delivered();
        expect(outcomes.every((o) => o === 'handled')).toBe(true);

        // Exactly one winner in the audit, and the row names it.
        expect(await auditCounts(db, gate.gateId)).toEqual({ won: 1, lost: 199 });
        const won = (await audit(db, gate.gateId)).find((r) => r.outcome === 'won')!;
        const [row] = await db.select().from(approvalGates).where(eq(approvalGates.id, gate.gateId));
        const winner = { id: won.actor!.id, name: NAMES[won.actor!.id]!, decision: won.decision as Decision };
        expect(row).toMatchObject({
          state: 'settled',
          decision: winner.decision,
          decidedPlatform: 'telegram',
          decidedBy: { platform: 'telegram', id: winner.id, operator: winner.name },
        });

        // Every loser is answered privately with the winner's decision, name, platform and time.
        const line = `${winner.decision === 'once' ? 'Approved once' : 'Denied'} by ${winner.name} on Telegram at ${hhmm(row!.claimedAt!)}`;
        const replies = one.surface.privately;
        expect(replies).toHaveLength(199);
        const again = taps.filter((t) => t.actor.id === winner.id && t.decision === winner.decision).length - 1;
        const mine = replies.filter((r) => r.text.startsWith('You already decided this'));
        expect(mine).toHaveLength(again);
        for (const reply of mine) {
          expect(reply.actor.id).toBe(winner.id);
          expect(reply.text).toBe(`You already decided this: ${line}.`);
        }
        for (const reply of replies.filter((r) => !r.text.startsWith('You already decided this')))
          expect(reply.text).toBe(`Already decided: ${line}.`);

        // The card was edited once, to the outcome; the tool ran at most once; the model saw one result.
        expect(card.edits.map((c) => c.footer)).toEqual([line]);
        expect(tool.runs).toHaveLength(winner.decision === 'once' ? 1 : 0);
        if (mix === 'all once') expect(tool.runs).toEqual([{ target: 'rocket' }]);
        expect(toolRounds(llm.requests)).toBe(1);
        expect(llm.requests).toHaveLength(2);
        const results = toolResults(llm.requests.at(-1));
        expect(results).toEqual([
          winner.decision === 'once'
            ? 'launched rocket'
            : expect.stringMatching(new RegExp(`^denied by ${winner.name}\\. The call did not run`)),
        ]);
        expect(one.surface.texts().at(-1)).toBe(`done: ${results[0]}`);
        expect(await two.core.runner.inspect(CHAT)).toMatchObject({ next: [], questions: 0 });
      },
    );
  });
}

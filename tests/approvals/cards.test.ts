// approvals.channels: one card per destination through the outbox; a decision on any of them edits
// all of them to the outcome. Card arguments are masked and long ones cut with an honest count.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Actor, ChatRef } from '../../src/core/surface/index.ts';
import { outboxOfOwner } from '../../src/core/outbox/index.ts';
import { CHAT, startTestCore, type TestCore } from '../agent/helpers/core.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { BACKENDS } from '../helpers/databases.ts';
import { access, field, launch, launchTool, only, tapEvent } from './helpers.ts';
import { argsPreview } from '../../src/core/approvals/card.ts';
import { fitCard } from '../../src/core/surface/index.ts';

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});

const SECRET = 'hunter2-api-secret-value';
const PLATFORMS: Array<[name: string, chat: ChatRef, maya: Actor, shown: string]> = [
  ['telegram', CHAT, { platform: 'telegram', id: '42' }, 'Telegram'],
  ['slack', 'slack:C0123', { platform: 'slack', id: 'U0123ABC' }, 'Slack'],
  ['discord', 'discord:456', { platform: 'discord', id: '987654321' }, 'Discord'],
];

for (const backend of BACKENDS) {
  describe(`approval cards on every destination [${backend}]`, () => {
    let t: TestCore | undefined;
    let tool: ReturnType<typeof launchTool>;
    let surfaces: Record<string, RecordingSurface>;

    beforeEach(async () => {
      llm.requests.length = 0;
      tool = launchTool();
      t = await startTestCore({
        baseURL: llm.baseURL,
        backend,
        tools: [tool.tool],
        config: {
          access: access(),
          approvals: { channels: ['slack:C0123', 'discord:456'] },
          http: { api_token: SECRET },
        },
      });
      surfaces = {
        telegram: t.surface,
        slack: new RecordingSurface('slack'),
        discord: new RecordingSurface('discord'),
      };
      t.core.attachSurface(surfaces.slack!);
      t.core.attachSurface(surfaces.discord!);
    });
    afterEach(async () => {
      await t?.close();
      t = undefined;
    });

    it.each(PLATFORMS)(
      'a decision on %s edits the cards on all three platforms to the outcome',
      async (platform, chat, maya, shown) => {
        const core = t!;
        llm.script(launch({ target: 'venus' }));
        await core.say('launch to venus');
        const gate = only(await core.core.approvals.list());

        // One card per destination, each delivered once through the outbox, with its message reference.
        const rows = await outboxOfOwner(core.database.db, { kind: 'gate', id: gate.gateId });
        expect(rows.map((r) => [r.kind, r.destination, r.state]).sort()).toEqual([
          ['card', 'discord:456', 'sent'],
          ['card', 'slack:C0123', 'sent'],
          ['card', CHAT, 'sent'],
        ]);
        for (const [name, where] of PLATFORMS.map(([n, c]) => [n, c] as const)) {
          const surface = surfaces[name]!;
          expect(surface.cards.map((c) => [c.ref.chat, c.card.title])).toEqual([[where, 'Approve launch?']]);
          expect(rows.find((r) => r.destination === where)?.messageRef).toEqual(surface.cards[0]!.ref);
        }

        await core.core.pipeline.handle(tapEvent(surfaces[platform]!.cards[0]!.card, 'once', maya, chat));
        await core.delivered();
        const footer = new RegExp(`^Approved once by maya on ${shown} at \\d\\d:\\d\\d UTC$`);
        for (const surface of Object.values(surfaces)) {
          expect(surface.cards).toHaveLength(1);
          expect(surface.cards[0]!.edits).toHaveLength(1);
          expect(surface.cards[0]!.edits[0]).toMatchObject({
            title: 'Approval: launch',
            buttons: [],
            footer: expect.stringMatching(footer),
          });
        }
        const edits = (await outboxOfOwner(core.database.db, { kind: 'gate', id: gate.gateId })).filter(
          (r) => r.kind === 'edit',
        );
        expect(edits.map((r) => [r.destination, r.state]).sort()).toEqual([
          ['discord:456', 'sent'],
          ['slack:C0123', 'sent'],
          [CHAT, 'sent'],
        ]);
        expect(tool.runs).toEqual([{ target: 'venus' }]);
      },
    );

    it('masks configured secrets, not fields by their name, on every card, and carries every argument', async () => {
      const core = t!;
      const payload = 'x'.repeat(1000);
      llm.script(launch({ target: 'pluto', token: 'tok-plain-value-9876', note: `uses ${SECRET} inside`, payload }));
      await core.say('launch to pluto');
      // What the card must carry: every masked argument, the short fields first (each platform fits
      // them to its own limit and says how much it hides: card-fit.test.ts).
      // A field named `token` is shown (a name is not a secret); the configured secret inside `note` is not.
      const expected = JSON.stringify(
        { target: 'pluto', note: 'uses ••• inside', token: 'tok-plain-value-9876', payload },
        null,
        1,
      );

      await core.tap('deny');
      for (const surface of Object.values(surfaces)) {
        const [sent] = surface.cards;
        for (const card of [sent!.card, ...sent!.edits]) {
          expect(field(card, 'Arguments')).toBe(expected);
          expect(JSON.stringify(card)).not.toContain(SECRET);
        }
        expect(sent!.edits).toHaveLength(1);
      }
      expect(tool.runs).toHaveLength(0);
    });

    it('shows only the arguments the model sent, not defaults the schema fills in', async () => {
      const core = t!;
      llm.script({ toolCalls: [{ name: 'write_file', args: { path: 'note.txt', content: 'hi' } }] });
      await core.say('write a note');
      await core.tap('deny');
      const [sent] = surfaces.slack!.cards;
      expect(JSON.parse(field(sent!.card, 'Arguments'))).toEqual({ path: 'note.txt', content: 'hi' });
      expect(field(sent!.card, 'Arguments')).not.toContain('append');
    });
  });
}

describe('argsPreview and fitCard', () => {
  it('puts every short field first when the arguments are long, and keeps every character', () => {
    // Before: in the model's order, a long first field pushed the path off the card.
    const args = { content: 'x'.repeat(700), append: false, path: 'scripts/deploy.sh' };
    const preview = argsPreview(args);
    expect(preview.indexOf('"path": "scripts/deploy.sh"')).toBeLessThan(preview.indexOf('"content"'));
    expect(preview).toContain('"append": false');
    expect(JSON.parse(preview)).toEqual(args);
  });

  it('cuts where a cluster ends and counts the rest exactly', () => {
    const value = argsPreview({ text: `${'a'.repeat(587)}${'😀'.repeat(20)}`, flag: '🇸🇦' });
    const card = { title: 'T', fields: [{ label: 'Arguments', value, whole: true }], buttons: [] };
    const fitted = fitCard(card, { fits: (c) => c.fields[0]!.value.length <= 640, canShowAll: false });
    const [shown, note] = fitted.fields[0]!.value.split('\n…');
    // No lone surrogate, no flag split in two.
    expect(shown).toBe(shown!.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, ''));
    expect(value.startsWith(shown!)).toBe(true);
    expect(note).toBe(` ${[...value].length - [...shown!].length} more characters not shown`);
  });
});

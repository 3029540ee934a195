// deny_reason: required on Discord (the fake Discord, a real discord.js client): the Deny button is answered with a
// modal (interaction response type 9) and decides nothing; a blank reason is answered privately and decides
// nothing; the MODAL_SUBMIT carrying the reason denies the call once, through the same first-decision-wins path as
// a tap, and the model gets it.
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../../contract/support.ts';
import { startFakeLlm } from '../../fakes/llm-server.ts';
import { DM_OF, MAYA, startHarness } from '../../adapters/discord/harness.ts';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

describe('a required deny reason on Discord', () => {
  it('required deny reason reaches the model: the Deny shows a modal, its submission denies the call', async () => {
    const llm = await startFakeLlm();
    cleanup.push(() => llm.close());
    const h = await startHarness({
      modelBaseUrl: llm.baseURL,
      config: {
        approvals: { policies: [{ name: 'careful', match: { tools: ['write_file'] }, deny_reason: 'required' }] },
      },
    });
    cleanup.push(() => h.close());
    const dm = DM_OF[MAYA.id]!;

    llm.script({ toolCalls: [{ name: 'write_file', args: { path: 'note.txt', content: 'x' } }] });
    h.say({ channelId: dm, author: MAYA, content: 'write the note', guild: false });
    const card = await eventually(
      async () => h.fake.messages(dm),
      (ms) => ms.find((m) => m.components.length > 0),
      'the card',
    );
    const deny = card.components
      .flatMap((row) => row.components as Array<{ custom_id: string }>)
      .find((b) => b.custom_id.endsWith(':deny'))!.custom_id;

    const tap = h.click({ channelId: dm, messageId: card.id, user: MAYA, customId: deny });
    const shown = await eventually(
      async () => h.fake.interactionResponses(tap.id).callbacks,
      (callbacks) => callbacks[0],
      'the modal',
    );
    expect(shown).toMatchObject({ type: 9, data: { title: 'Why?' } });
    const [gate] = await h.core.approvals.list();
    expect(gate!.state).toBe('pending'); // showing the modal decided nothing

    const blank = h.fake.submitModal({ interactionId: tap.id, user: MAYA, values: { reason: '   ' } });
    const refused = await eventually(
      async () => h.fake.interactionResponses(blank.id),
      (r) => (r.callbacks[0] && r.original ? r : undefined),
      'the answer to a blank reason',
    );
    expect(refused.callbacks[0]!.type).toBe(4);
    expect(refused.original!.flags & 64).toBe(64); // ephemeral: only Maya sees it
    expect(refused.original!.content).toMatch(/reason is required/);
    expect((await h.core.approvals.get(gate!.gateId))!.state).toBe('pending');

    // Discord's client lets a modal be submitted again after a refused answer only by tapping again.
    const again = h.click({ channelId: dm, messageId: card.id, user: MAYA, customId: deny });
    await eventually(
      async () => h.fake.interactionResponses(again.id).callbacks,
      (callbacks) => callbacks[0]?.type === 9,
      'the modal again',
    );
    const reason = 'not on a Friday 🙅 — ليس اليوم';
    const submit = h.fake.submitModal({ interactionId: again.id, user: MAYA, values: { reason } });
    await eventually(
      async () => llm.requests.length,
      (n) => n === 2,
      'the turn resumed with the denial',
    );
    await h.settled();
    expect(h.fake.interactionResponses(submit.id).callbacks[0]!.type).toBe(6); // the card is edited, not answered
    const results = llm.requests[1]!.messages!.filter((m) => m.role === 'tool').map((m) => String(m.content));
    expect(results).toEqual([expect.stringContaining(reason)]);
    const settled = await h.core.approvals.get(gate!.gateId);
    expect(settled).toMatchObject({ state: 'settled', decision: 'deny', denyReason: reason, decidedBy: 'Maya' });
    const edited = h.fake.messages(dm).find((m) => m.id === card.id)!;
    expect(edited.components).toEqual([]);
    expect(edited.content).toContain(reason);
  });
});

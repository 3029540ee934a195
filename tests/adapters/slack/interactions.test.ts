// Clicks and slash commands: acknowledged at once, then handled; `/kazma <command>` answers only the
// person who typed it (through its response URL), and private answers to clicks go the same way.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../fakes/llm-server.ts';
import { eventually } from '../../helpers/eventually.ts';
import { clickDecision } from './contract-driver.ts';
import { dmOf, LINA, MAYA, OMAR, SAM, startSlackHarness, type SlackHarness } from './harness.ts';

const CHANNEL = 'C0TEAM';
let llm: FakeLlm;
let h: SlackHarness | undefined;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  llm.requests.length = 0;
});

const slash = (text: string, user = MAYA, channel = CHANNEL) =>
  h!.fake.signer.sendSlashCommand(h!.url, { command: '/kazma', text, user: user.id, channel });
const ephemeralTexts = (user: { id: string }, channel = CHANNEL) =>
  h!.fake.ephemerals(channel, user.id).map((e) => e.text);

describe('/kazma', () => {
  it('acknowledges at once with an empty 200 and answers privately through the response URL', async () => {
    h = await startSlackHarness({ modelBaseUrl: llm.baseURL });
    const started = Date.now();
    const delivery = await slash('status');
    // Within Slack's 3-second deadline (recording the command comes first; the turn does not).
    expect(Date.now() - started).toBeLessThan(2500);
    expect([delivery.status, delivery.body]).toEqual([200, '']);
    await h.settled();
    const [status] = h.fake.ephemerals(CHANNEL, MAYA.id);
    expect(status?.via).toBe('response_url');
    expect(status?.text).toMatch(/^Kazma status\n.*\nthread: .*\npending approvals: 0/s);
    expect(h.fake.messages(CHANNEL)).toEqual([]); // nothing said in the channel
    expect(llm.requests).toHaveLength(0);
  });

  it('runs any command: /kazma alone is help, unknown ones are named, operator-only ones refused, all privately', async () => {
    h = await startSlackHarness({ modelBaseUrl: llm.baseURL });
    await slash('');
    await slash('frobnicate now');
    await slash('approvals grants', LINA);
    await h.settled();
    expect(ephemeralTexts(MAYA)[0]).toMatch(/^Commands:\n/);
    expect(ephemeralTexts(MAYA)[1]).toBe('Unknown command /frobnicate. /help lists the commands.');
    expect(ephemeralTexts(LINA)).toEqual(['No "always" grants are in force in this chat.']);
    expect(h.fake.messages(CHANNEL)).toEqual([]);
  });

  it('refuses a stranger privately', async () => {
    h = await startSlackHarness({ modelBaseUrl: llm.baseURL });
    await slash('status', SAM);
    await h.settled();
    expect(ephemeralTexts(SAM)).toEqual([
      expect.stringMatching(/^⛔ Sorry, you are not on this Kazma's access list; .*an operator can add "slack:U0SAM"/),
    ]);
  });

  it('shows the waiting cards on /kazma approvals, and a click on one decides', async () => {
    h = await startSlackHarness({ modelBaseUrl: llm.baseURL });
    llm.script({ toolCalls: [{ name: 'write_file', args: { path: 'note.txt', content: 'x', append: true } }] });
    await h.fake.signer.sendMessage(h.url, { channel: dmOf(MAYA), user: MAYA.id, text: 'write the note' });
    await h.settled();
    await slash('approvals', MAYA, dmOf(MAYA));
    await h.settled();
    expect(ephemeralTexts(MAYA, dmOf(MAYA))).toEqual(['1 approval waiting in this chat:']);
    const cards = h.fake.messages(dmOf(MAYA)).filter((m) => m.blocks?.some((b) => b.type === 'actions'));
    expect(cards).toHaveLength(2); // the original and the one shown again
    expect(await clickDecision(h, MAYA, `slack:${dmOf(MAYA)}`, cards[1]!.ts, 'once')).toBe(200);
    await eventually(
      async () => h!.fake.messages(dmOf(MAYA)).map((m) => m.text),
      (texts) => texts.includes('done: appended 1 bytes to note.txt'),
      'the reply after the tool ran',
    );
  });
});

describe('clicks', () => {
  it('are acknowledged within 3 s even while the decision is still running, and losers hear privately', async () => {
    h = await startSlackHarness({ modelBaseUrl: llm.baseURL });
    llm.script({ toolCalls: [{ name: 'write_file', args: { path: 'note.txt', content: 'x', append: true } }] });
    await h.fake.signer.sendMessage(h.url, { channel: dmOf(MAYA), user: MAYA.id, text: 'write the note' });
    await h.settled();
    const card = h.fake.messages(dmOf(MAYA)).find((m) => m.blocks?.some((b) => b.type === 'actions'))!;
    // The resumed turn's model call is held until both taps are answered: were an answer to wait for the
    // turn, it would never come (and the test would time out), however fast or slow the machine.
    const model = llm.holdNext(1);
    const statuses = await Promise.all([
      clickDecision(h, MAYA, `slack:${dmOf(MAYA)}`, card.ts, 'once'),
      clickDecision(h, OMAR, `slack:${dmOf(MAYA)}`, card.ts, 'deny'),
    ]);
    expect(statuses).toEqual([200, 200]);
    model.release();
    await h.settled();
    const loser = h.fake.ephemerals(dmOf(MAYA), OMAR.id);
    expect(loser.map((e) => [e.via, e.text])).toEqual([
      ['response_url', expect.stringMatching(/^Already decided: Approved once by Maya on Slack at \d\d:\d\d UTC/)],
    ]);
    const edited = h.fake.messages(dmOf(MAYA)).find((m) => m.ts === card.ts)!;
    expect(edited.blocks?.some((b) => b.type === 'actions')).toBe(false);
    expect(JSON.stringify(edited.blocks)).toMatch(/Approved once by Maya on Slack/);
    expect(h.fake.calls.of('chat.update', (c) => c.args.ts === card.ts && c.ok)).toHaveLength(1);
  });

  it('a click on a card whose question is gone is answered privately', async () => {
    h = await startSlackHarness({ modelBaseUrl: llm.baseURL });
    const posted = await h.platform.surface.sendCard(`slack:${CHANNEL}`, {
      title: 'Old question',
      fields: [],
      buttons: [{ id: 'apv:gone1:once', label: 'Approve', style: 'primary' }],
    });
    expect(await clickDecision(h, MAYA, `slack:${CHANNEL}`, posted.id, 'once')).toBe(200);
    await h.settled();
    expect(ephemeralTexts(MAYA)).toEqual([expect.stringMatching(/^This button is no longer active/)]);
  });
});

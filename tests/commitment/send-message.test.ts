// send_message through the assembled Kazma: an allowed target (by alias) posts once after approval,
// the card saying what the alias means; a target that is not allowed is never guessed: a clarify card
// on two platforms, one tap settles both, and the message goes to the chosen chat once.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Actor, ChatRef } from '../../src/core/surface/index.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { field, tapEvent, toolResults } from '../approvals/helpers.ts';
import { kazmasOnOneDatabase } from '../helpers/assembled.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';
import { CLARIFY_QUESTION } from '../../src/core/commitment/clarify.ts';
import { APPROVAL_LIKE_QUESTIONS } from '../../src/core/decisions/who-answers.ts';
import { MCP_REQUEST_QUESTION } from '../../src/core/mcp/server-requests.ts';

const CHAT: ChatRef = 'telegram:1';
const CHANNEL: ChatRef = 'slack:CAPPROVE';
const MAYA_TG: Actor = { platform: 'telegram', id: '42' };
const MAYA_SLACK: Actor = { platform: 'slack', id: 'U0123ABC' };

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});
const kazmas = kazmasOnOneDatabase();
afterEach(() => {
  llm.requests.length = 0;
});

async function start() {
  const k = await kazmas.start({
    model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 0 },
    access: { operators: [{ name: 'maya', telegram: '42', slack: 'U0123ABC' }] },
    approvals: { channels: [CHANNEL] },
    outbound: { targets: { ops: 'slack:COPS', team: 'telegram:-100200' }, allow_targets: ['ops', 'team'] },
  });
  const telegram = new RecordingSurface('telegram');
  const slack = new RecordingSurface('slack');
  k.kazma.core.attachSurface(telegram);
  k.kazma.core.attachSurface(slack);
  const handle = async (event: Parameters<typeof k.kazma.core.pipeline.handle>[0]) => {
    await k.kazma.core.pipeline.handle(event);
    await k.settled();
  };
  const say = (text: string) =>
    handle({ kind: 'message', eventId: randomUUID(), platform: 'telegram', chat: CHAT, actor: MAYA_TG, text });
  const tap = (actor: Actor, chat: ChatRef, actionId: string) =>
    handle({ kind: 'action', eventId: randomUUID(), platform: actor.platform, chat, actor, actionId });
  /** Every message posted anywhere that is not Kazma's reply in the origin chat. */
  const posts = () => [...telegram.sent, ...slack.sent].filter((s) => s.chat !== CHAT);
  return { k, telegram, slack, say, tap, handle, posts };
}

describe('send_message', () => {
  it('to an allowed alias: the card says what the alias means; after approval the message is posted once', async () => {
    const { telegram, say, handle, posts } = await start();
    llm.script(
      { toolCalls: [{ name: 'send_message', args: { to: 'ops', text: 'deploy finished' } }] },
      { text: 'Sent.' },
    );
    await say('tell ops the deploy finished');
    const card = telegram.openCard()!;
    expect(card.card.title).toContain('send_message');
    expect(field(card.card, 'Why')).toBe('"send_message" is a write tool and needs approval; "ops" is slack:COPS');
    expect(posts()).toEqual([]);
    await handle(tapEvent(card.card, 'once', MAYA_TG, CHAT));
    expect(posts()).toEqual([{ chat: 'slack:COPS', text: 'deploy finished' }]);
    expect(toolResults(llm.requests.at(-1)).at(-1)).toBe('posted to slack:COPS');
  });

  it('to an unknown target: a clarify card on two platforms; a tap on one settles both; posted once to the choice', async () => {
    const { k, telegram, slack, say, tap, posts } = await start();
    llm.script(
      { toolCalls: [{ name: 'send_message', args: { to: 'opz', text: 'the build is green' } }] },
      { text: 'Asked where it should go.' },
    );
    await say('tell opz the build is green');
    const onTelegram = telegram.openCard()!;
    const onSlack = slack.openCard()!;
    expect(onTelegram.ref.chat).toBe(CHAT);
    expect(onSlack.ref.chat).toBe(CHANNEL);
    for (const c of [onTelegram, onSlack]) {
      expect(c.card.title).toBe('Where should this message go? "opz" is not an allowed target.');
      expect(c.card.buttons.map((b) => b.label)).toEqual(['ops (slack:COPS)', 'team (telegram:-100200)', 'Cancel']);
    }
    // The clarify card is the gate: no approval card, and nothing posted yet.
    expect(telegram.cards).toHaveLength(1);
    expect(posts()).toEqual([]);
    expect(toolResults(llm.requests.at(-1)).at(-1)).toContain('asked which target was meant');

    const ops = onSlack.card.buttons[0]!.id;
    await tap(MAYA_SLACK, CHANNEL, ops);
    expect(posts()).toEqual([{ chat: 'slack:COPS', text: 'the build is green' }]);
    for (const c of [onTelegram, onSlack]) {
      expect(c.edits).toHaveLength(1);
      expect(c.edits[0]!.buttons).toEqual([]);
      expect(c.edits[0]!.footer).toMatch(/^ops \(slack:COPS\) by maya on Slack/);
    }
    // A late tap on the other card loses, is told so privately, and sends nothing again.
    await tap(MAYA_TG, CHAT, onTelegram.card.buttons[1]!.id);
    expect(telegram.privately.at(-1)?.text).toMatch(/^Already decided: ops \(slack:COPS\) by maya on Slack/);
    expect(posts()).toHaveLength(1);
    expect(await k.kazma.core.questions.get(onSlack.card.buttons[0]!.id.split(':')[1]!)).toMatchObject({
      state: 'decided',
      decision: 't0',
    });
  });

  it('Cancel on a clarify card posts nothing', async () => {
    const { telegram, say, tap, posts } = await start();
    llm.script(
      { toolCalls: [{ name: 'send_message', args: { to: 'slack:CRANDOM', text: 'hello' } }] },
      { text: 'Asked.' },
    );
    await say('post hello to slack:CRANDOM');
    const card = telegram.openCard()!;
    await tap(MAYA_TG, CHAT, card.card.buttons.at(-1)!.id);
    expect(card.edits[0]!.footer).toMatch(/^Cancel by maya/);
    expect(posts()).toEqual([]);
  });
});

describe('a clarify card is decided like an approval', () => {
  it("under approvals.approvers and requester_may_approve: the requester and a non-approver are refused; an approver's pick posts", async () => {
    const ana: Actor = { platform: 'telegram', id: '43' };
    const bob: Actor = { platform: 'telegram', id: '44' };
    const k = await kazmas.start({
      model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 0 },
      access: {
        operators: [
          { name: 'maya', telegram: '42' },
          { name: 'ana', telegram: '43' },
          { name: 'bob', telegram: '44' },
        ],
      },
      approvals: { approvers: ['maya', 'ana'], requester_may_approve: false },
      outbound: { targets: { ops: 'telegram:-100999' }, allow_targets: ['ops'] },
    });
    const telegram = new RecordingSurface('telegram');
    k.kazma.core.attachSurface(telegram);
    const handle = async (event: Parameters<typeof k.kazma.core.pipeline.handle>[0]) => {
      await k.kazma.core.pipeline.handle(event);
      await k.settled();
    };
    llm.script(
      { toolCalls: [{ name: 'send_message', args: { to: 'opz', text: 'wire the money' } }] },
      { text: 'Asked.' },
    );
    await handle({
      kind: 'message',
      eventId: randomUUID(),
      platform: 'telegram',
      chat: CHAT,
      actor: ana,
      text: 'tell opz to wire the money',
    });
    const card = telegram.openCard()!;
    const ops = card.card.buttons[0]!.id;
    const posted = () => telegram.sent.filter((s) => s.chat === 'telegram:-100999');
    // Before: any operator's pick posted it, the requester's own included.
    await handle({
      kind: 'action',
      eventId: randomUUID(),
      platform: 'telegram',
      chat: CHAT,
      actor: ana,
      actionId: ops,
    });
    expect(telegram.privately.at(-1)?.text).toBe(
      'You cannot decide this: approvals.requester_may_approve is false: another operator must decide.',
    );
    await handle({
      kind: 'action',
      eventId: randomUUID(),
      platform: 'telegram',
      chat: CHAT,
      actor: bob,
      actionId: ops,
    });
    expect(telegram.privately.at(-1)?.text).toBe('You cannot decide this: bob is not in approvals.approvers.');
    expect(posted()).toEqual([]);
    await handle({
      kind: 'action',
      eventId: randomUUID(),
      platform: 'telegram',
      chat: CHAT,
      actor: MAYA_TG,
      actionId: ops,
    });
    expect(posted()).toEqual([{ chat: 'telegram:-100999', text: 'wire the money' }]);
  });

  it('names the kinds it covers as the modules that ask them do', () => {
    expect(APPROVAL_LIKE_QUESTIONS).toEqual([CLARIFY_QUESTION, MCP_REQUEST_QUESTION]);
  });
});

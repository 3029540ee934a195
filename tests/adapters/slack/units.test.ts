// The Slack adapter's pure parts: signatures, inbound text and event conversion, card rendering, and the
// small registries (threads, response URLs).
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CARD_LIMITS, renderCard } from '../../../src/adapters/slack/cards.ts';
import { slackTextToPlain, stripBotMention } from '../../../src/adapters/slack/format.ts';
import type { SlackIdentity } from '../../../src/adapters/slack/ids.ts';
import { actionEvent, commandEvent, mentionEvent, messageEvent } from '../../../src/adapters/slack/events.ts';
import { ResponseUrls } from '../../../src/adapters/slack/responses.ts';
import { verifySlackSignature } from '../../../src/adapters/slack/signature.ts';
import { KnownThreads } from '../../../src/adapters/slack/threads.ts';

const SECRET = 'shh';
const NOW = 1_800_000_000_000;
const sign = (raw: string, ts: number, secret = SECRET) =>
  `v0=${createHmac('sha256', secret).update(`v0:${ts}:${raw}`).digest('hex')}`;
const check = (over: { timestamp?: string | undefined; signature?: string | undefined; rawBody?: string }) =>
  verifySlackSignature({
    secret: SECRET,
    rawBody: '{"a":1}',
    nowMs: NOW,
    timestamp: String(NOW / 1000),
    signature: sign('{"a":1}', NOW / 1000),
    ...over,
  });

describe('verifySlackSignature', () => {
  it('accepts the exact body signed within five minutes either way', () => {
    expect(check({})).toEqual({ ok: true });
    for (const skew of [-300, 300])
      expect(check({ timestamp: String(NOW / 1000 + skew), signature: sign('{"a":1}', NOW / 1000 + skew) })).toEqual({
        ok: true,
      });
  });

  it('rejects a stale or future timestamp, a changed body, a wrong secret and missing or malformed headers', () => {
    for (const skew of [-301, 301])
      expect(check({ timestamp: String(NOW / 1000 + skew), signature: sign('{"a":1}', NOW / 1000 + skew) }).ok).toBe(
        false,
      );
    expect(check({ rawBody: '{"a":2}' })).toMatchObject({ ok: false, reason: expect.stringMatching(/does not match/) });
    expect(check({ signature: sign('{"a":1}', NOW / 1000, 'other') }).ok).toBe(false);
    expect(check({ signature: undefined })).toMatchObject({ ok: false, reason: expect.stringMatching(/missing/) });
    expect(check({ timestamp: undefined }).ok).toBe(false);
    expect(check({ timestamp: '17e8' }).ok).toBe(false);
    expect(check({ signature: 'v1=abc' }).ok).toBe(false);
    expect(verifySlackSignature({ secret: '', rawBody: '', timestamp: '1', signature: 'v0=' }).ok).toBe(false);
  });
});

describe('inbound text', () => {
  it('turns Slack markup into plain text and unescapes', () => {
    expect(
      slackTextToPlain('<@U1> see <https://e.com|docs> &amp; <https://x.org> in <#C1|general> <!here> a &lt;b&gt;'),
    ).toBe('@U1 see docs (https://e.com) & https://x.org in #general @here a <b>');
    expect(slackTextToPlain('&amp;lt;')).toBe('&lt;');
  });

  it('strips a leading mention of the bot only', () => {
    expect(stripBotMention('<@UBOT> deploy it', 'UBOT')).toBe('deploy it');
    expect(stripBotMention('<@UBOT>, /status', 'UBOT')).toBe('/status');
    expect(stripBotMention('ask <@UBOT> later', 'UBOT')).toBe('ask <@UBOT> later');
    expect(stripBotMention('<@UBOT>', 'UBOT')).toBe('<@UBOT>');
  });
});

const ME: SlackIdentity = { userId: 'UBOT', botId: 'BBOT', team: 'T', user: 'kazma' };
const msg = (over: Record<string, unknown>) => ({
  type: 'message',
  user: 'U1',
  text: 'hi',
  ts: '100.1',
  channel: 'D1',
  channel_type: 'im',
  ...over,
});

describe('event conversion', () => {
  it('takes every DM, marks its own messages, ignores other bots and non-written subtypes', () => {
    const threads = new KnownThreads();
    expect(messageEvent(msg({}), 'Ev1', ME, threads)).toMatchObject({
      kind: 'message',
      eventId: 'Ev1',
      chat: 'slack:D1',
      actor: { platform: 'slack', id: 'U1' },
      text: 'hi',
      fromSelf: false,
    });
    expect(messageEvent(msg({ user: 'UBOT', bot_id: 'BBOT' }), 'Ev2', ME, threads)).toMatchObject({ fromSelf: true });
    expect(
      messageEvent(msg({ user: undefined, bot_id: 'BOTHER', subtype: 'bot_message' }), 'Ev3', ME, threads),
    ).toBeUndefined();
    expect(messageEvent(msg({ subtype: 'message_changed' }), 'Ev4', ME, threads)).toBeUndefined();
    expect(messageEvent(msg({ thread_ts: '90.1' }), 'Ev5', ME, threads)).toMatchObject({ chat: 'slack:D1:90.1' });
    expect(messageEvent(msg({ thread_ts: '100.1' }), 'Ev6', ME, threads)).toMatchObject({ chat: 'slack:D1' }); // a thread's parent
  });

  it('in channels takes only replies in known threads that do not mention the bot', () => {
    const threads = new KnownThreads();
    const channel = (over: Record<string, unknown>) => msg({ channel: 'C1', channel_type: 'channel', ...over });
    expect(messageEvent(channel({}), 'E', ME, threads)).toBeUndefined();
    expect(messageEvent(channel({ thread_ts: '50.1' }), 'E', ME, threads)).toBeUndefined();
    threads.add('slack:C1:50.1');
    expect(messageEvent(channel({ thread_ts: '50.1' }), 'E', ME, threads)).toMatchObject({ chat: 'slack:C1:50.1' });
    expect(messageEvent(channel({ thread_ts: '50.1', text: '<@UBOT> again' }), 'E', ME, threads)).toBeUndefined();
  });

  it('answers a mention in its thread, a new one for a top-level mention', () => {
    expect(mentionEvent(msg({ channel: 'C1', text: '<@UBOT> hello' }), 'E', ME)).toMatchObject({
      chat: 'slack:C1:100.1',
      text: 'hello',
    });
    expect(mentionEvent(msg({ channel: 'C1', thread_ts: '50.1' }), 'E', ME)).toMatchObject({ chat: 'slack:C1:50.1' });
  });

  it('reads a click: its card, the card’s thread, the trigger as event id', () => {
    const body = {
      type: 'block_actions',
      trigger_id: 'trig1',
      user: { id: 'U1' },
      channel: { id: 'C1' },
      container: { message_ts: '60.1' },
      message: { ts: '60.1', thread_ts: '50.1' },
      actions: [{ action_id: 'apv:g1:once' }],
    };
    expect(actionEvent(body)).toMatchObject({
      kind: 'action',
      eventId: 'trig1',
      chat: 'slack:C1:50.1',
      actionId: 'apv:g1:once',
      message: { chat: 'slack:C1:50.1', id: '60.1' },
    });
    expect(actionEvent({ ...body, message: { ts: '60.1', thread_ts: '60.1' } })?.chat).toBe('slack:C1');
    expect(actionEvent({ ...body, type: 'interactive_message' })).toBeUndefined();
  });

  it('reads /kazma <command> as a private command; /kazma alone is help', () => {
    const c = { command: '/kazma', user_id: 'U1', channel_id: 'C1', trigger_id: 't' };
    expect(commandEvent({ ...c, text: ' Approvals  grants ' })).toMatchObject({
      kind: 'command',
      name: 'approvals',
      args: ['grants'],
      chat: 'slack:C1',
      answerPrivately: true,
    });
    expect(commandEvent({ ...c, text: '/status' })).toMatchObject({ name: 'status', args: [] });
    expect(commandEvent({ ...c, text: '' })).toMatchObject({ name: 'help', args: [] });
    expect(commandEvent({ ...c, text: 'deny g1 <@U2|omar> said &lt;no&gt;' })).toMatchObject({
      name: 'deny',
      args: ['g1', '@omar', 'said', '<no>'],
    });
  });
});

describe('renderCard', () => {
  const card = {
    title: 'Approve write_file?',
    fields: [
      { label: 'Tool', value: 'write_file (tier: danger) <b>&' },
      { label: 'Arguments', value: `{\n "content": "${'x&'.repeat(3000)} \`\`\` end"\n}` },
    ],
    buttons: [
      { id: 'apv:g1:once', label: 'Approve', style: 'primary' as const },
      { id: 'apv:g1:always', label: 'Always', style: 'secondary' as const },
      { id: 'apv:g1:deny', label: 'Deny', style: 'danger' as const },
    ],
  };

  it('is a header, field sections, one actions block with the core’s ids, all within Slack’s limits', () => {
    const { text, blocks } = renderCard(card);
    expect(text).toBe('Approve write_file?');
    expect(blocks.map((b) => b.type)).toEqual(['header', 'section', 'actions']);
    const fields = (blocks[1] as { fields: Array<{ text: string }> }).fields;
    expect(fields[0]!.text).toBe('*Tool*\nwrite_file (tier: danger) &lt;b&gt;&amp;');
    expect(fields[1]!.text.startsWith('*Arguments*\n```{')).toBe(true);
    expect(fields[1]!.text.endsWith('```')).toBe(true);
    expect([...fields[1]!.text].length).toBeLessThanOrEqual(CARD_LIMITS.field);
    expect(fields[1]!.text).not.toMatch(/&a?m?p?…|&(?!amp;|lt;|gt;)/); // no escape cut in half
    expect(
      (blocks[2] as { elements: Array<{ action_id: string; style?: string }> }).elements.map((e) => [
        e.action_id,
        e.style,
      ]),
    ).toEqual([
      ['apv:g1:once', 'primary'],
      ['apv:g1:always', undefined],
      ['apv:g1:deny', 'danger'],
    ]);
  });

  it('a settled card has no buttons and shows its footer', () => {
    const { text, blocks } = renderCard({
      ...card,
      buttons: [],
      footer: 'Approved once by maya on Slack at 12:03 UTC',
    });
    expect(blocks.map((b) => b.type)).toEqual(['header', 'section', 'context']);
    expect(text).toBe('Approve write_file? — Approved once by maya on Slack at 12:03 UTC');
  });

  it('spreads more than ten fields over several sections', () => {
    const many = Array.from({ length: 13 }, (_, i) => ({ label: `f${i}`, value: 'v' }));
    expect(
      renderCard({ ...card, fields: many })
        .blocks.filter((b) => b.type === 'section')
        .map((b) => (b as { fields: unknown[] }).fields.length),
    ).toEqual([10, 3]);
  });
});

describe('registries', () => {
  it('KnownThreads forgets the least recently used first', () => {
    const threads = new KnownThreads({ max: 2 });
    threads.add('slack:C:1');
    threads.add('slack:C:2');
    threads.add('slack:C:1');
    threads.add('slack:C:3');
    expect([threads.has('slack:C:1'), threads.has('slack:C:2'), threads.has('slack:C:3')]).toEqual([true, false, true]);
  });

  it('ResponseUrls finds the newest open URL of a person in a channel until it is closed', () => {
    const urls = new ResponseUrls();
    const a = async () => 'a';
    const b = async () => 'b';
    const closeA = urls.open('C1', 'U1', a);
    const closeB = urls.open('C1', 'U1', b);
    expect(urls.find('C1', 'U1')).toBe(b);
    expect(urls.find('C1', 'U2')).toBeUndefined();
    closeB();
    expect(urls.find('C1', 'U1')).toBe(a);
    closeA();
    expect(urls.size).toBe(0);
  });
});

// What the approver sees is what runs: a card never cuts a call's arguments silently. Where they do not
// fit a platform's card, the card shows what fits, says how many characters it hides, offers Show all
// (the whole of them, privately) and no Approve or Always beside the part it shows. Before, Discord cut
// them at about 250 characters with a bare "…", and approving deleted `src/` through a `-r` never shown.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { argsPreview, gateCard } from '../../src/core/approvals/card.ts';
import type { Card } from '../../src/core/surface/index.ts';
import type { Gate } from '../../src/core/approvals/index.ts';
import { CallbackCodec, renderCard as telegramCard } from '../../src/adapters/telegram/cards.ts';
import { telegramVisibleText } from '../../src/adapters/telegram/format.ts';
import { renderCard as slackCard } from '../../src/adapters/slack/cards.ts';
import { renderCard as discordCard } from '../../src/adapters/discord/cards.ts';
import { renderCard as consoleCard } from '../../src/adapters/console/render.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { MAYA, startHarness, type Harness } from '../adapters/telegram/harness.ts';

// The dangerous part comes last in the model's order, after a long harmless-looking one.
const ARGS = { note: `cleanup ${'.'.repeat(5000)}`, command: 'rm', flags: '-r', path: 'src' };
const NOW = new Date('2026-01-01T12:00:00Z');

function gate(args: Record<string, unknown>): Gate {
  return {
    gateId: 'gate_fit00001',
    threadId: 't',
    interruptId: 'i',
    chat: 'telegram:42',
    requester: { platform: 'telegram', id: '42', displayName: 'Maya' },
    call: { kind: 'tool_approval', callId: 'c', tool: 'shell', tier: 'danger', args, reason: 'runs a command' },
    state: 'pending',
    createdAt: NOW,
    updatedAt: NOW,
    expiresAt: new Date(NOW.getTime() + 600_000),
  };
}

const full = argsPreview(ARGS);
/** The count a card states must be what it leaves out of the full arguments. */
function hiddenOf(shownText: string): { shown: string; hidden: number } {
  const match = /([\s\S]*?)\n?… ([\d,]+) more characters not shown: Show all sends them to you/.exec(shownText);
  expect(match, shownText.slice(-200)).not.toBeNull();
  return { shown: match![1]!, hidden: Number(match![2]!.replace(/,/g, '')) };
}

describe('a card whose arguments do not fit the platform', () => {
  const card = gateCard(gate(ARGS), { now: NOW });

  it('keeps the short fields first and every argument in the core card', () => {
    expect(full.length).toBeGreaterThan(5000);
    expect(card.fields.find((f) => f.label === 'Arguments')!.value).toBe(full);
    expect(full.indexOf('"flags": "-r"')).toBeLessThan(full.indexOf('"note"'));
  });

  const platforms: Array<[string, () => { text: string; buttons: string[] }]> = [
    [
      'Telegram',
      () => {
        const r = telegramCard(card, new CallbackCodec());
        return { text: telegramVisibleText(r.html), buttons: r.keyboard!.inline_keyboard.flat().map((b) => b.text) };
      },
    ],
    [
      'Slack',
      () => {
        const r = slackCard(card);
        const actions = r.blocks.find((b) => b.type === 'actions');
        const buttons = actions?.type === 'actions' ? actions.elements.map((b) => b.text.text) : [];
        const fields = r.blocks.flatMap((b) => (b.type === 'section' ? (b.fields ?? []).map((f) => f.text) : []));
        return { text: fields.join('\n'), buttons };
      },
    ],
    [
      'Discord',
      () => {
        const r = discordCard(card);
        return { text: r.content, buttons: r.components.flatMap((row) => row.components.map((b) => b.label!)) };
      },
    ],
  ];

  it.each(platforms)('on %s says how much is hidden and offers Show all and Deny, not Approve', (_name, render) => {
    const { text, buttons } = render();
    expect(buttons).toEqual(['Show all', 'Deny']);
    const { hidden } = hiddenOf(text);
    expect(hidden).toBeGreaterThan(0);
    expect(text).toContain('"flags": "-r"');
    expect(text).toContain('"path": "src"');
  });

  it('counts exactly what Telegram leaves out', () => {
    const text = telegramVisibleText(telegramCard(card, new CallbackCodec()).html);
    const args = text.slice(text.indexOf('Arguments: ') + 'Arguments: '.length);
    const { shown, hidden } = hiddenOf(args);
    expect(full.startsWith(shown)).toBe(true);
    expect(shown.length + hidden).toBe(full.length);
    expect(text.length).toBeLessThanOrEqual(4096);
  });

  it('shows everything in the terminal, with its three answers', () => {
    const text = consoleCard(card);
    expect(text).not.toContain('not shown');
    expect(text).toContain('.'.repeat(5000));
    expect(text.split('\n').at(-1)).toBe('[approval] [o]nce / [a]lways / [d]eny?');
  });

  it('leaves a card that fits as it is: Approve, Always, Deny', () => {
    const small: Card = gateCard(gate({ command: 'ls' }), { now: NOW });
    expect(
      telegramCard(small, new CallbackCodec())
        .keyboard!.inline_keyboard.flat()
        .map((b) => b.text),
    ).toEqual(['Approve', 'Always', 'Deny']);
    expect(discordCard(small).components[0]!.components.map((b) => b.label)).toEqual(['Approve', 'Always', 'Deny']);
  });
});

describe('Show all on Telegram', () => {
  let llm: FakeLlm;
  let h: Harness | undefined;
  beforeAll(async () => {
    llm = await startFakeLlm();
  });
  afterAll(async () => {
    await llm.close();
  });
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('sends every argument to the person privately, and the card offers no Approve', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL });
    const content = `${'#!/bin/sh\n'}${'echo ok\n'.repeat(900)}rm -r src\n`;
    llm.script({ toolCalls: [{ name: 'write_file', args: { path: 'run.sh', content } }] });
    h.say({ chatId: MAYA.id, from: MAYA, text: 'write it' });
    await h.settled();
    const shown = h.fake.messages(MAYA.id).find((m) => m.reply_markup)!;
    const buttons = shown.reply_markup!.inline_keyboard.flat();
    expect(buttons.map((b) => b.text)).toEqual(['Show all', 'Deny']);
    expect(shown.text).toMatch(/… [\d,]+ more characters not shown: Show all sends them to you/);
    expect(shown.text).not.toContain('rm -r src');
    const before = h.fake.messages(MAYA.id).length;
    const tap = h.tap({ chatId: MAYA.id, messageId: shown.message_id, from: MAYA, data: buttons[0]!.callback_data! });
    await h.settled();
    const sent = h.fake
      .messages(MAYA.id)
      .slice(before)
      .map((m) => m.text)
      .join('\n');
    // Every line of the file reached her, the last one included, in as many messages as it took (a
    // cut between two messages drops the space it falls on).
    const squeeze = (text: string) => text.replace(/\s/g, '');
    expect(squeeze(sent)).toContain(squeeze(JSON.stringify(content).slice(1, -1)));
    expect(sent).toContain('rm -r src');
    expect(sent).toMatch(/Decide with \/approve [\w-]{12} or \/deny/);
    const answers = h.fake.calls
      .of('answerCallbackQuery')
      .filter((c) => c.body.callback_query_id === tap.callback_query!.id);
    expect(answers.map((a) => a.body.text)).toEqual(['Sent below.']);
  });
});

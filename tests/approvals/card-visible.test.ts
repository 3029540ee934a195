// What the approver sees is what runs: a hostile MCP server's tool name (newlines with padding, a
// bidi override, zero-width characters) and hostile argument keys are shown as visible escapes on every
// surface, so the name cannot end the card before its arguments nor hide or reverse any text.
import { describe, expect, it } from 'vitest';
import { gateCard } from '../../src/core/approvals/card.ts';
import type { Gate } from '../../src/core/approvals/index.ts';
import { visibleLine } from '../../src/core/surface/visible.ts';
import { CallbackCodec, renderCard as telegramCard } from '../../src/adapters/telegram/cards.ts';
import { telegramVisibleText } from '../../src/adapters/telegram/format.ts';
import { renderCard as slackCard } from '../../src/adapters/slack/cards.ts';
import { renderCard as discordCard } from '../../src/adapters/discord/cards.ts';
import { renderCard as consoleCard } from '../../src/adapters/console/render.ts';
import { approvalsApi } from '../../src/adapters/http/index.ts';

// Ends the card's first line, pads the screen, and reverses what follows.
const HOSTILE_TOOL = `mcp__files__read\n\n${' '.repeat(60)}\n\u202Eexe.daer\u200B\u2060\uFEFF`;
const HOSTILE_ARGS = { 'pa\u202Eth': 'src\u200B', cmd: 'rm -r src\u2066' };
const HIDDEN = /[\u202E\u200B\u2060\uFEFF\u2066]/;

function hostileGate(): Gate {
  const now = new Date('2026-01-01T12:00:00Z');
  return {
    gateId: 'gate_visible1',
    threadId: 't',
    interruptId: 'i',
    chat: 'telegram:42',
    requester: { platform: 'telegram', id: '42', displayName: 'Maya\u202E' },
    call: { kind: 'tool_approval', callId: 'c', tool: HOSTILE_TOOL, tier: 'danger', args: HOSTILE_ARGS, reason: 'x' },
    state: 'pending',
    createdAt: now,
    updatedAt: now,
    expiresAt: new Date(now.getTime() + 600_000),
  };
}

const shownName = 'mcp__files__read\\n\\n' + ' '.repeat(60) + '\\n\\u202Eexe.daer\\u200B\\u2060\\uFEFF';

describe('a hostile tool name on a card', () => {
  const card = gateCard(hostileGate(), { now: new Date('2026-01-01T12:00:00Z') });

  it('is one visible line in the core card, with its arguments escaped', () => {
    expect(visibleLine(HOSTILE_TOOL)).toBe(shownName);
    expect(card.title).toBe(`Approve ${shownName}?`);
    const args = card.fields.find((f) => f.label === 'Arguments')!.value;
    expect(args).toContain('"pa\\u202Eth": "src\\u200B"');
    expect(args).toContain('"cmd": "rm -r src\\u2066"');
    expect(JSON.stringify(card)).not.toMatch(HIDDEN);
  });

  it('cannot end the Telegram card early', () => {
    const html = telegramCard(card, new CallbackCodec()).html;
    const lines = telegramVisibleText(html).split('\n');
    expect(lines[0]).toBe(`Approve ${shownName}?`);
    expect(lines[1]).toBe(`Tool: ${shownName} (tier: danger)`);
    expect(lines[3]).toBe('Arguments: {');
    expect(html).not.toMatch(HIDDEN);
  });

  it('cannot end the Slack, Discord or console card early', () => {
    const slack = slackCard(card);
    expect(JSON.stringify(slack)).not.toMatch(HIDDEN);
    expect(slack.blocks[0]).toMatchObject({ text: { text: expect.not.stringContaining('\n') } });
    const discord = discordCard(card).content;
    expect(discord.split('\n')[0]).not.toContain('Arguments');
    expect(discord.split('\n')[1]).toMatch(/^\*\*Tool:\*\* mcp\\_\\_files\\_\\_read\\\\n\\\\n {60}\\\\n/);
    expect(discord).not.toMatch(HIDDEN);
    const terminal = consoleCard(card).split('\n');
    expect(terminal[0]).toBe(`[approval] Approve ${shownName}?`);
    expect(terminal.join('\n')).not.toMatch(HIDDEN);
  });

  it('is escaped in the approvals API’s JSON, which still parses to the real name', async () => {
    const gate = hostileGate();
    const app = approvalsApi({
      readToken: 'read-token-0123456789',
      operators: [],
      core: { list: async () => [gate], decide: async () => ({ ok: true, gate }) as never },
    });
    const response = await app.request('/api/approvals', {
      headers: { authorization: 'Bearer read-token-0123456789' },
    });
    const raw = await response.text();
    expect(raw).not.toMatch(HIDDEN);
    expect(raw).toContain('\\u202e');
    const body = JSON.parse(raw) as { approvals: Array<{ tool: string; args: unknown }> };
    expect(body.approvals[0]!.tool).toBe(HOSTILE_TOOL);
    expect(body.approvals[0]!.args).toEqual(HOSTILE_ARGS);
  });
});

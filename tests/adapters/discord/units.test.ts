// The Discord adapter's pure parts: ids, which messages are for the bot, card rendering within Discord's
// limits, slash command definitions, error mapping, the doctor's reading of the application, typing.
import { DiscordAPIError, HTTPError } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { CUSTOM_ID_MAX, escapeDiscord, renderCard, sameCard } from '../../../src/adapters/discord/cards.ts';
import { slashCommands } from '../../../src/adapters/discord/commands.ts';
import { describeApplication } from '../../../src/adapters/discord/doctor.ts';
import { discordError } from '../../../src/adapters/discord/errors.ts';
import { actionEvent, commandEvent, messageEvent, type MessageView } from '../../../src/adapters/discord/events.ts';
import { discordChunks } from '../../../src/adapters/discord/format.ts';
import { channelOf, chatRefOf } from '../../../src/adapters/discord/ids.ts';
import { TypingRefresher } from '../../../src/core/chat/intake/typing-refresher.ts';
import { approvalActionId, gateCard } from '../../../src/core/approvals/card.ts';
import { newGateId } from '../../../src/core/approvals/gate-store.ts';
import { newCommand } from '../../../src/core/agent/commands.ts';
import { approvalCommands, type ApprovalCommandsPort } from '../../../src/core/approvals/commands.ts';
import { builtinCommands } from '../../../src/core/commands/index.ts';

const newCommandList = () => [
  newCommand({
    startNewThread: async () => '',
    currentThread: async () => '',
    models: () => [],
    instructions: () => [],
    compact: async () => ({ status: 'nothing' }),
    stop: async () => 'nothing',
  }),
];
import { visible } from './visible.ts';

const BOT = '1000000000000000001';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const view = (over: Partial<MessageView> = {}): MessageView => ({
  id: '9001',
  place: { channelId: '500' },
  inGuild: true,
  content: 'hello',
  fromUser: true,
  repliedToBot: false,
  author: { id: '42', username: 'maya', globalName: 'Maya', bot: false },
  ...over,
});

describe('ids', () => {
  it('gives a thread its own ChatRef under its parent, and sends to the thread itself', () => {
    expect(chatRefOf({ channelId: '22', parentId: '11' })).toBe('discord:11:22');
    expect(chatRefOf({ channelId: '11', parentId: null })).toBe('discord:11');
    expect(channelOf('discord:11:22')).toBe('22');
    expect(channelOf('discord:11')).toBe('11');
    expect(() => channelOf('slack:C1')).toThrow(/not a Discord chat/);
  });
});

describe('which messages are for the bot', () => {
  it('in a DM: every message; in a guild (mention mode): mentions and replies to the bot, mention removed', () => {
    expect(messageEvent(view({ inGuild: false }), BOT, 'mention')).toMatchObject({
      kind: 'message',
      eventId: '9001',
      chat: 'discord:500',
      text: 'hello',
    });
    expect(messageEvent(view(), BOT, 'mention')).toBeUndefined();
    expect(messageEvent(view({ content: `<@${BOT}> deploy please` }), BOT, 'mention')?.text).toBe('deploy please');
    expect(messageEvent(view({ content: `<@!${BOT}>, status?` }), BOT, 'mention')?.text).toBe('status?');
    expect(messageEvent(view({ content: `thanks <@1234> and <@${BOT}>` }), BOT, 'mention')?.text).toBe(
      `thanks <@1234> and <@${BOT}>`,
    );
    expect(messageEvent(view({ content: '<@1234> not you' }), BOT, 'mention')).toBeUndefined();
    expect(messageEvent(view({ repliedToBot: true, content: 'and then?' }), BOT, 'mention')?.text).toBe('and then?');
    expect(messageEvent(view(), BOT, 'all')?.text).toBe('hello');
  });

  it('marks the bot’s own messages, ignores other bots, webhooks, system and empty messages', () => {
    expect(
      messageEvent(view({ inGuild: false, author: { id: BOT, username: 'kazma', bot: true } }), BOT, 'all'),
    ).toMatchObject({ fromSelf: true });
    expect(messageEvent(view({ author: { id: '77', username: 'otherbot', bot: true } }), BOT, 'all')).toBeUndefined();
    expect(messageEvent(view({ fromUser: false }), BOT, 'all')).toBeUndefined();
    expect(messageEvent(view({ content: '   ' }), BOT, 'all')).toBeUndefined();
  });

  it('turns a tap into an action on the tapped message, and a slash command’s args into words', () => {
    const who = {
      id: '9002',
      place: { channelId: '22', parentId: '11' },
      user: { id: '42', username: 'maya', globalName: null },
    };
    expect(actionEvent(who, 'apv:abc:once', '777', BOT)).toEqual({
      kind: 'action',
      eventId: '9002',
      platform: 'discord',
      chat: 'discord:11:22',
      actor: { platform: 'discord', id: '42', displayName: 'maya' },
      fromSelf: false,
      actionId: 'apv:abc:once',
      message: { chat: 'discord:11:22', id: '777' },
    });
    expect(commandEvent(who, 'approvals', '  revoke   g1 ')).toMatchObject({
      kind: 'command',
      name: 'approvals',
      args: ['revoke', 'g1'],
    });
    expect(commandEvent(who, 'status', null).args).toEqual([]);
  });
});

describe('cards', () => {
  const card = {
    title: 'Approve mcp__git__push?',
    fields: [
      { label: 'Tool', value: 'mcp__git__push (tier: danger)' },
      { label: 'Arguments', value: '{\n "ref": "main```"\n}' },
    ],
    buttons: [
      { id: 'apv:abc:once', label: 'Approve', style: 'primary' as const },
      { id: 'apv:abc:deny', label: 'Deny', style: 'danger' as const },
    ],
  };

  it('escapes Markdown in values, shows multi-line values as a code block, and puts the button ids in custom_id', () => {
    const open = renderCard(card);
    expect(visible(open.content).text).toBe(
      'Approve mcp__git__push?\nTool: mcp__git__push (tier: danger)\nArguments: \n{\n "ref": "main`\u200b`\u200b`"\n}',
    );
    expect(open.components).toEqual([
      {
        type: 1,
        components: [
          { type: 2, custom_id: 'apv:abc:once', label: 'Approve', style: 1 },
          { type: 2, custom_id: 'apv:abc:deny', label: 'Deny', style: 4 },
        ],
      },
    ]);
    const settled = renderCard({ ...card, buttons: [], footer: 'Approved once by Maya' });
    expect(settled.components).toEqual([]);
    expect(settled.content.endsWith('\n\n*Approved once by Maya*')).toBe(true);
    expect(sameCard(open, renderCard(card))).toBe(true);
    expect(sameCard(open, settled)).toBe(false);
    expect(escapeDiscord('# a_b *c*\n> q')).toBe('\\# a\\_b \\*c\\*\n\\> q');
  });

  it('keeps a card with huge fields within one message, and refuses a button id Discord would refuse', () => {
    const big = renderCard({
      title: 'T',
      fields: Array.from({ length: 7 }, (_, i) => ({ label: `F${i}`, value: 'x'.repeat(900) })),
      buttons: [],
      footer: 'the end',
    });
    expect(big.content.length).toBeLessThanOrEqual(2000);
    expect(big.content.endsWith('*the end*')).toBe(true);
    expect(() =>
      renderCard({
        title: 'T',
        fields: [],
        buttons: [{ id: 'x'.repeat(CUSTOM_ID_MAX + 1), label: 'X', style: 'primary' }],
      }),
    ).toThrow(/longer than Discord's 100/);
  });

  it('renders the core’s real approval card with its three decision ids verbatim', () => {
    const gateId = newGateId();
    const gate = {
      gateId,
      state: 'pending',
      chat: 'discord:500',
      threadId: 't',
      interruptId: 'i',
      requester: { platform: 'discord', id: '42', displayName: 'Maya' },
      call: { callId: 'c', tool: 'write_file', tier: 'danger', args: { path: 'n.txt' }, reason: 'writes a file' },
      expiresAt: new Date(Date.now() + 60_000),
    } as unknown as Parameters<typeof gateCard>[0];
    const rendered = renderCard(gateCard(gate));
    const ids = rendered.components.flatMap((r) => r.components.map((b) => b.custom_id));
    expect(ids).toEqual([
      approvalActionId(gateId, 'once'),
      approvalActionId(gateId, 'always'),
      approvalActionId(gateId, 'deny'),
    ]);
    expect(visible(rendered.content).text).toContain('Tool: write_file (tier: danger)');
  });
});

describe('format', () => {
  it('never sends an empty message: Markdown that renders to nothing is sent as written', () => {
    expect(discordChunks('**hi**')).toEqual(['**hi**']);
    expect(discordChunks('   ')).toEqual(['…']);
    const parts = discordChunks(Array.from({ length: 300 }, (_, i) => `line ${i} ${'y'.repeat(20)}`).join('\n'));
    expect(parts.length).toBeGreaterThanOrEqual(4);
    expect(parts.every((p) => p.length <= 2000)).toBe(true);
  });
});

describe('slash commands', () => {
  it('defines the core’s commands and /config, with an args option where a command takes words, within Discord’s limits', () => {
    // The commands every Kazma registers; their ports are not called to read names and summaries.
    const commands = [...builtinCommands(), ...newCommandList(), ...approvalCommands({} as ApprovalCommandsPort)];
    const defs = slashCommands(commands.map((c) => ({ name: c.name, summary: c.summary })));
    const names = defs.map((d) => d.name);
    expect(names).toEqual(expect.arrayContaining(['help', 'new', 'status', 'approvals', 'config', 'approve', 'deny']));
    expect(new Set(names).size).toBe(names.length);
    for (const d of defs) expect([...(d.description ?? '')].length).toBeLessThanOrEqual(100);
    expect(defs.find((d) => d.name === 'status')?.options).toEqual([]);
    expect(defs.find((d) => d.name === 'approvals')?.options).toEqual([
      expect.objectContaining({ name: 'args', type: 3, required: false }),
    ]);
    expect(defs.every((d) => JSON.stringify(d.contexts) === '[0,1]')).toBe(true);
  });
});

describe('errors', () => {
  const apiError = (status: number, code: number, message: string) =>
    new DiscordAPIError({ code, message }, code, status, 'POST', 'http://x/api/v10/channels/1/messages', { body: {} });

  it('says what to do for the refusals people meet, and tells transport failures apart', () => {
    expect(
      discordError('POST /channels/:id/messages', apiError(403, 50013, 'Missing Permissions'), 'http://x/api'),
    ).toMatchObject({
      code: 'discord_api',
      status: 403,
      discordCode: 50013,
      message: expect.stringMatching(/Missing Permissions\. The bot lacks a permission .*Send Messages/),
    });
    expect(discordError('GET /users/@me', apiError(401, 0, '401: Unauthorized'), 'http://x/api')).toMatchObject({
      code: 'discord_unauthorized',
      message: expect.stringMatching(/Reset Token/),
    });
    const http = new HTTPError(502, 'Bad Gateway', 'POST', 'http://x/api/v10/channels/1/messages', { body: {} });
    expect(discordError('POST /channels/:id/messages', http, 'http://x/api')).toMatchObject({
      code: 'discord_unreachable',
      message: expect.stringMatching(/at http:\/\/x\/api: .*discord\.api/),
    });
    const plain = new RangeError('a bug');
    expect(discordError('x', plain, 'http://x/api')).toBe(plain);
  });
});

describe('doctor', () => {
  it('accepts the configured application with message content, and names the fix otherwise', () => {
    expect(describeApplication({ application_id: '' }, { id: '1', name: 'Kazma', flags: 1 << 19 })).toBe(
      'application 1 (Kazma) may read message content',
    );
    expect(() => describeApplication({ application_id: '2' }, { id: '1', name: 'Kazma', flags: 1 << 18 })).toThrow(
      /application_id is 2, but the token belongs to application 1/,
    );
    expect(() => describeApplication({ application_id: '' }, { id: '1', name: 'Kazma', flags: 0 })).toThrow(
      /Message Content Intent/,
    );
  });
});

describe('typing', () => {
  it('signals at once, refreshes, stops on stop, and gives up when a signal fails', async () => {
    const sent: string[] = [];
    let fail = false;
    const typing = new TypingRefresher({
      intervalMs: 30,
      send: async (chat) => {
        if (fail) throw new Error('gone');
        sent.push(chat);
      },
    });
    await typing.start('discord:1');
    await typing.start('discord:1'); // no second timer
    await sleep(100);
    typing.stop('discord:1');
    const count = sent.length;
    expect(count).toBeGreaterThanOrEqual(3);
    await sleep(80);
    expect(sent.length).toBe(count);
    fail = true;
    await typing.start('discord:2');
    expect(typing.isActive('discord:2')).toBe(false);
  });
});

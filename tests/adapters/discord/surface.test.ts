// The Discord Surface against the fake Discord: typing while a turn runs, card edits, REST retries and
// refusals that say what to do, taps and slash commands answered in time and privately, start-up errors.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DiscordPlatform } from '../../../src/adapters/discord/index.ts';
import { configSchema } from '../../../src/core/config/index.ts';
import { createLogger } from '../../../src/core/log/index.ts';
import { startFakeDiscord } from '../../fakes/discord/fake-discord.ts';
import { startFakeLlm, type FakeLlm } from '../../fakes/llm-server.ts';
import { eventually } from '../../helpers/eventually.ts';
import { DM_OF, MAYA, SAM, startHarness, type Harness } from './harness.ts';
import { visible } from './visible.ts';

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
  llm.requests.length = 0;
});

const MAYA_DM = DM_OF[MAYA.id]!;
const DM = `discord:${MAYA_DM}` as const;
const card = (footer?: string) => ({
  title: 'Approve deploy?',
  fields: [{ label: 'Why', value: 'it is Friday' }],
  buttons: footer ? [] : [{ id: 'apv:AAAAAAAAAAAA:once', label: 'Approve', style: 'primary' as const }],
  ...(footer && { footer }),
});
/** Starts a harness with Maya's DM open (the fake knows a DM once someone wrote in it). */
async function withDm(options: Partial<Parameters<typeof startHarness>[0]> = {}): Promise<Harness> {
  h = await startHarness({ modelBaseUrl: llm.baseURL, ...options });
  h.say({ channelId: MAYA_DM, author: MAYA, content: 'hi', guild: false });
  await h.settled();
  return h;
}

describe('typing', () => {
  it('keeps "typing…" up while the turn runs and stops once the reply is sent', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL, typingIntervalMs: 150 });
    llm.hangNext(1, 1000);
    h.say({ channelId: MAYA_DM, author: MAYA, content: 'think hard', guild: false });
    const reply = await h.fake.calls.waitFor(
      'POST /channels/:id/messages',
      (c) => c.body.content === 'echo: think hard',
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    const typing = h.fake.calls.all('POST /channels/:id/typing', (c) => c.params.id === MAYA_DM);
    expect(typing.filter((t) => t.at <= reply.at).length).toBeGreaterThanOrEqual(5);
    expect(typing.filter((t) => t.at > reply.at + 50)).toEqual([]);
  });
});

describe('outbound', () => {
  it('posts without pings and with a nonce Discord enforces; skips an edit that changes nothing', async () => {
    const { platform, fake } = await withDm();
    const ref = await platform.surface.sendCard(DM, card());
    const post = fake.calls.all('POST /channels/:id/messages').at(-1)!;
    expect(post.body).toMatchObject({
      allowed_mentions: { parse: [] },
      enforce_nonce: true,
      nonce: expect.stringMatching(/^.{1,25}$/),
    });
    await platform.surface.editCard(ref, card('Approved once by Maya'));
    await platform.surface.editCard(ref, card('Approved once by Maya'));
    expect(fake.calls.count('PATCH /channels/:id/messages/:mid')).toBe(1);
    const stored = fake.messages(MAYA_DM).find((m) => m.id === ref.id)!;
    expect(stored.components).toEqual([]);
    expect(visible(stored.content).text).toBe('Approve deploy?\nWhy: it is Friday\n\nApproved once by Maya');
  });

  it('an edit of a card someone deleted is done, not retried for ever', async () => {
    const { platform, fake } = await withDm();
    const ref = await platform.surface.sendCard(DM, card());
    fake.failNext('PATCH /channels/:id/messages/:mid', {
      status: 404,
      body: { message: 'Unknown Message', code: 10008 },
    });
    await expect(platform.surface.editCard(ref, card('Denied by Omar'))).resolves.toBeUndefined();
  });

  it('retries a 5xx and delivers once; after the retries it fails saying where it could not reach Discord', async () => {
    const { platform, fake } = await withDm();
    fake.failNext('POST /channels/:id/messages', { status: 502, times: 2 });
    await platform.surface.send(DM, { text: 'after two 502s' });
    expect(fake.messages(MAYA_DM).filter((m) => m.content === 'after two 502s')).toHaveLength(1);
    fake.failNext('POST /channels/:id/messages', { status: 503, times: 4 });
    await expect(platform.surface.send(DM, { text: 'lost' })).rejects.toMatchObject({
      code: 'discord_unreachable',
      message: expect.stringContaining(fake.api),
    });
  });

  it('says what to do when Discord refuses: an unknown channel names the settings to check', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL });
    await expect(h.platform.surface.send('discord:1999999999999999999', { text: 'hello' })).rejects.toMatchObject({
      code: 'discord_api',
      status: 404,
      discordCode: 10003,
      message: expect.stringMatching(/Unknown Channel\. Check the channel id \(access\.chats, approvals\.channels\)/),
      // A refusal for good: the outbox marks the delivery failed instead of retrying it.
      permanent: true,
    });
  });
});

describe('taps', () => {
  it('acknowledges at once and answers a tap on a button no longer active privately', async () => {
    const { platform, fake } = await withDm();
    const stale = await platform.surface.sendCard(DM, card());
    const click = h!.click({ channelId: MAYA_DM, messageId: stale.id, user: MAYA, customId: 'apv:AAAAAAAAAAAA:once' });
    await h!.settled();
    const r = fake.interactionResponses(click.id);
    expect(r.callbacks.map((c) => c.type)).toEqual([6]);
    expect(r.followUps).toEqual([
      expect.objectContaining({ flags: 64, content: expect.stringMatching(/no longer active|not known/) }),
    ]);
    expect(fake.messages(MAYA_DM).find((m) => m.id === stale.id)?.edits).toEqual([]);
  });
});

describe('slash commands', () => {
  it('registers the commands at start by one bulk overwrite', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL });
    expect(h.fake.calls.count('PUT /applications/:app/commands')).toBe(1);
    expect(h.fake.commands().map((c) => (c as { name: string }).name)).toEqual(
      expect.arrayContaining(['help', 'new', 'status', 'approvals', 'config']),
    );
  });

  it('answers /status, /approvals grants and /config ephemerally, in the deferred reply', async () => {
    const { fake } = await withDm();
    const status = h!.slash({ name: 'status', user: MAYA, channelId: MAYA_DM });
    const grants = h!.slash({ name: 'approvals', options: { args: 'grants' }, user: MAYA, channelId: MAYA_DM });
    const config = h!.slash({
      name: 'config',
      options: { args: 'tools toggle shell' },
      user: MAYA,
      channelId: MAYA_DM,
    });
    await h!.settled();
    const answer = (id: string) => fake.interactionResponses(id);
    for (const id of [status.id, grants.id, config.id])
      expect(answer(id).callbacks).toMatchObject([{ type: 5, data: { flags: 64 } }]);
    expect(answer(status.id).original).toMatchObject({
      flags: 64,
      content: expect.stringMatching(/^Kazma status\n[\s\S]*pending approvals: 0/),
    });
    expect(answer(grants.id).original?.content).toBe('No "always" grants are in force in this chat.');
    expect(answer(config.id).original?.content).toBe(
      'shell is off: the model is not offered it from the next message (saved; survives restarts).',
    );
    expect(fake.messages(MAYA_DM).map((m) => m.content)).toEqual(['hi', 'echo: hi']); // nothing said in the chat
  });

  it('acknowledges within Discord’s deadline while the command waits behind a running turn', async () => {
    // The fake refuses a callback after Discord's 3 s. The turn's model call is held until the command has
    // been acknowledged: were the acknowledgement to wait for the turn, it would never come, however fast
    // or slow the machine.
    const { fake } = await withDm();
    const model = llm.holdNext(1);
    h!.say({ channelId: MAYA_DM, author: MAYA, content: 'slow one', guild: false });
    await fake.calls.waitFor('POST /channels/:id/typing', (c) => c.params.id === MAYA_DM);
    const fresh = h!.slash({ name: 'new', user: MAYA, channelId: MAYA_DM });
    await eventually(
      () => fake.interactionResponses(fresh.id).callbacks,
      (callbacks) => callbacks.length > 0,
      'the acknowledgement',
    );
    expect(fake.interactionResponses(fresh.id).callbacks).toMatchObject([{ type: 5, data: { flags: 64 } }]);
    const releasedAt = Date.now();
    model.release();
    await h!.settled();
    const r = fake.interactionResponses(fresh.id);
    expect(r.original).toMatchObject({ flags: 64, content: expect.stringMatching(/^Started a new conversation/) });
    expect(r.originalEdits[0]!.at).toBeGreaterThanOrEqual(releasedAt); // answered after the turn, through the token
  });

  it('refuses a stranger privately', async () => {
    const { fake } = await withDm();
    const cmd = h!.slash({ name: 'status', user: SAM, channelId: MAYA_DM });
    await h!.settled();
    expect(fake.interactionResponses(cmd.id).original?.content).toMatch(
      /^⛔ Sorry, you are not on this Kazma's access list; .*an operator can add "discord:2000000000000000004"/,
    );
  });
});

describe('start', () => {
  it('fails with what to do when the token is wrong', async () => {
    const fake = await startFakeDiscord();
    try {
      const config = configSchema.parse({ discord: { enabled: true, token: 'wrong', api: fake.api } }).discord;
      const platform = new DiscordPlatform({
        config,
        logger: createLogger({ level: 'silent', pretty: false }),
        core: {
          pipeline: {
            accept: async () => ({ status: 'accepted' as const, done: Promise.resolve('handled' as const) }),
          },
          attachSurface: () => () => {},
          commands: { list: () => [] },
        },
      });
      await expect(platform.start()).rejects.toMatchObject({
        code: 'discord_unauthorized',
        message: expect.stringMatching(/Discord refused the bot token at .*Developer Portal/),
      });
      await platform.stop();
    } finally {
      await fake.close();
    }
  });
});

// The fake Discord driven by the real discord.js Client: login, messages (guild, thread, DM), limits,
// rate limits, auth and shutdown. Interactions and reconnects have their own files.
import { ChannelType, DiscordAPIError, Events, type RateLimitData, type TextChannel } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { startFakeDiscord } from './fake-discord.ts';
import { ALICE, DM, GENERAL, THREAD, connected, newClient, nextUserMessage } from './harness.ts';

describe('fake discord with the real discord.js client', () => {
  it('logs in: gateway/bot, IDENTIFY, READY and GUILD_CREATE with channels and a thread', async () => {
    const { fake, client } = await connected();
    expect(client.user?.id).toBe(fake.bot.id);
    const guild = client.guilds.cache.get(fake.guild.id);
    expect(guild?.channels.cache.get(GENERAL)?.type).toBe(ChannelType.GuildText);
    const thread = guild?.channels.cache.get(THREAD);
    expect(thread?.isThread() && thread.parentId).toBe(GENERAL);
    expect(fake.calls.count('GET /gateway/bot')).toBe(1);
    expect(fake.sessions).toMatchObject({ identifies: 1, resumes: 0 });
  });

  it('delivers a guild MESSAGE_CREATE and stores the reply with its message_reference', async () => {
    const { fake, client } = await connected();
    client.on(Events.MessageCreate, (m) => {
      if (!m.author.bot) void m.reply(`pong: ${m.content}`);
    });
    const sent = fake.sendUserMessage({ channelId: GENERAL, author: ALICE, content: 'ping', mentionsBot: true });
    await fake.calls.waitFor('POST /channels/:id/messages');
    const [user, reply] = fake.messages(GENERAL);
    expect(user?.id).toBe(sent.id);
    expect(reply).toMatchObject({
      content: `pong: <@${fake.bot.id}> ping`,
      type: 19,
      message_reference: { message_id: sent.id },
    });
    expect(reply?.author.id).toBe(fake.bot.id);
  });

  it('delivers a message in a thread and in a brand-new thread (THREAD_CREATE first)', async () => {
    const { fake, client } = await connected();
    const inThread = nextUserMessage(client);
    fake.sendUserMessage({ channelId: THREAD, author: ALICE, content: 'in thread' });
    expect((await inThread).channel.isThread()).toBe(true);
    const fresh = nextUserMessage(client);
    fake.sendUserMessage({ channelId: '1200000000000000099', author: ALICE, content: 'new', threadParent: GENERAL });
    const m = await fresh;
    expect(m.channel.isThread() && m.channel.parentId).toBe(GENERAL);
  });

  it('handles a DM (no guild_id) through Partials.Channel and serves GET /channels/:id', async () => {
    const { fake, client } = await connected();
    const got = nextUserMessage(client);
    fake.sendUserMessage({ channelId: DM, author: ALICE, content: 'hi in private', guild: false });
    const m = await got;
    expect(m.guildId).toBeNull();
    expect(m.channel.type).toBe(ChannelType.DM);
    if (!m.channel.isSendable()) throw new Error('DM channel should be sendable');
    await m.channel.send('private answer');
    expect(fake.messages(DM).map((x) => x.content)).toEqual(['hi in private', 'private answer']);
    const fetched = await client.channels.fetch(DM, { force: true });
    expect(fetched?.type).toBe(ChannelType.DM);
    expect(fake.calls.count('GET /channels/:id')).toBe(1);
  });

  it('round-trips Arabic with diacritics and emoji byte-exactly', async () => {
    const { fake, client } = await connected();
    const text = 'مَرْحَبًا بِالْعَالَمِ — شُكْرًا 👋🏽 🇸🇦 👨‍👩‍👧 ✅';
    const got = nextUserMessage(client);
    fake.sendUserMessage({ channelId: GENERAL, author: ALICE, content: text });
    const m = await got;
    expect(Buffer.from(m.content, 'utf8').equals(Buffer.from(text, 'utf8'))).toBe(true);
    await (m.channel as TextChannel).send(m.content);
    const stored = fake.messages(GENERAL).at(-1)?.content ?? '';
    expect(Buffer.from(stored, 'utf8').equals(Buffer.from(text, 'utf8'))).toBe(true);
  });

  it('rejects 2001 characters with the real Invalid Form Body; 2000 emoji (code points) pass', async () => {
    const { fake, client } = await connected();
    const channel = client.channels.cache.get(GENERAL) as TextChannel;
    const err = await channel.send('x'.repeat(2001)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DiscordAPIError);
    expect((err as DiscordAPIError).status).toBe(400);
    expect((err as DiscordAPIError).rawError).toEqual({
      code: 50035,
      message: 'Invalid Form Body',
      errors: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' }] } },
    });
    await channel.send('😀'.repeat(2000)); // 4000 UTF-16 units, 2000 code points: Discord accepts it
    expect(fake.messages(GENERAL).map((m) => [...m.content].length)).toEqual([2000]);
  });

  it('stores an uploaded file (multipart with payload_json) with its bytes', async () => {
    const { fake, client } = await connected();
    const channel = client.channels.cache.get(GENERAL) as TextChannel;
    const m = await channel.send({
      content: 'output attached',
      files: [{ attachment: Buffer.from('line 1\n'), name: 'out.txt' }],
    });
    expect(m.attachments.first()?.name).toBe('out.txt');
    const stored = fake.messages(GENERAL)[0];
    expect(stored?.files[0]?.data.toString('utf8')).toBe('line 1\n');
    expect(stored?.attachments[0]).toMatchObject({ filename: 'out.txt', size: 7 });
  });

  it('429 with Retry-After: 1 is retried once by @discordjs/rest and stored once', async () => {
    const { fake, client } = await connected();
    fake.failNext('POST /channels/:id/messages', { status: 429, headers: { 'Retry-After': '1' } });
    const limited: RateLimitData[] = [];
    client.rest.on('rateLimited', (d) => limited.push(d));
    const started = Date.now();
    await (client.channels.cache.get(GENERAL) as TextChannel).send('after the limit');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    const attempts = fake.calls.all('POST /channels/:id/messages');
    expect(attempts.map((c) => c.status)).toEqual([429, 200]);
    expect(fake.messages(GENERAL).map((m) => m.content)).toEqual(['after the limit']);
    expect(limited).toHaveLength(1);
    expect(limited[0]).toMatchObject({ route: '/channels/:id/messages', scope: 'user', global: false });
    expect(limited[0]?.retryAfter).toBeGreaterThan(900);
  });

  it('answers a wrong token with 401 and discord.js login rejects', async () => {
    const fake = await startFakeDiscord({ token: 'right' });
    try {
      const client = newClient(fake);
      await expect(client.login('wrong')).rejects.toMatchObject({ code: 'TokenInvalid' });
      const res = await fetch(`${fake.api}/v10/users/@me`, { headers: { authorization: 'Bot wrong' } });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ message: '401: Unauthorized', code: 0 });
    } finally {
      await fake.close();
    }
  });

  it('client.destroy() closes the gateway promptly and ends the session', async () => {
    const { fake, client } = await connected();
    expect(fake.sessions.liveConnections).toBe(1);
    const started = Date.now();
    await client.destroy();
    expect(Date.now() - started).toBeLessThan(1000);
    await expect.poll(() => fake.sessions.liveConnections, { timeout: 2000 }).toBe(0);
  });
});

// Gateway resilience with the real discord.js client: abnormal drops (RESUME + replay), sessions the
// server ended (op 9 → fresh IDENTIFY) and zombie connections (no heartbeat ACK → reconnect).
import { GatewayIntentBits } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { ALICE, GENERAL, connected, nextUserMessage } from './harness.ts';

describe('fake discord gateway', () => {
  it('answers heartbeats with op 11 at the HELLO interval', async () => {
    const { fake, client } = await connected({ heartbeatIntervalMs: 200 });
    await expect.poll(() => fake.calls.count('GATEWAY HEARTBEAT'), { timeout: 2000 }).toBeGreaterThanOrEqual(3);
    expect(client.ws.ping).toBeGreaterThanOrEqual(0); // discord.js measured a round trip: ACKs arrived
    expect(fake.sessions).toMatchObject({ identifies: 1, resumes: 0 });
  });

  it('after an abnormal drop (1006) the client RESUMEs and gets the dispatch it missed, then live ones', async () => {
    const { fake, client } = await connected();
    const missed = nextUserMessage(client);
    fake.dropConnection();
    fake.sendUserMessage({ channelId: GENERAL, author: ALICE, content: 'sent while you were away' });
    expect((await missed).content).toBe('sent while you were away');
    const resume = await fake.calls.waitFor('GATEWAY RESUME');
    expect(resume.body).toMatchObject({ session_id: expect.any(String), seq: expect.any(Number) });
    expect(fake.sessions).toMatchObject({ identifies: 1, resumes: 1, invalidSessions: 0 });
    const live = nextUserMessage(client);
    fake.sendUserMessage({ channelId: GENERAL, author: ALICE, content: 'and now live' });
    expect((await live).content).toBe('and now live');
  });

  it('a RESUME of a session the server ended gets op 9, and the client IDENTIFYs afresh', async () => {
    const { fake, client } = await connected();
    fake.dropConnection({ code: 4009 }); // session timed out: discord.js tries to resume, which must fail
    await fake.calls.waitFor('GATEWAY INVALID_SESSION');
    // @discordjs/ws spaces IDENTIFYs ≥5 s apart (+ up to 1.5 s jitter), so this takes 5–6.5 s.
    await expect.poll(() => fake.sessions.identifies, { timeout: 10_000 }).toBe(2);
    expect(fake.sessions.resumes).toBe(0);
    const got = nextUserMessage(client);
    fake.sendUserMessage({ channelId: GENERAL, author: ALICE, content: 'after re-identify' });
    expect((await got).content).toBe('after re-identify');
  });

  it('when heartbeats stop being ACKed the client drops the zombie and reconnects', async () => {
    const { fake, client } = await connected({ heartbeatIntervalMs: 500 });
    fake.stopAckingHeartbeats();
    await fake.calls.waitFor('GATEWAY RESUME', undefined, 8000);
    expect(fake.sessions).toMatchObject({ identifies: 1, resumes: 1 });
    const got = nextUserMessage(client);
    fake.sendUserMessage({ channelId: GENERAL, author: ALICE, content: 'still there?' });
    expect((await got).content).toBe('still there?');
  });

  it('filters by intents like Discord: no MessageContent → guild content blank unless the bot is mentioned', async () => {
    const { fake, client } = await connected({}, [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages]);
    const got = nextUserMessage(client);
    fake.sendUserMessage({ channelId: GENERAL, author: ALICE, content: 'secret' });
    expect((await got).content).toBe('');
    const mentioned = nextUserMessage(client);
    fake.sendUserMessage({ channelId: GENERAL, author: ALICE, content: 'hey', mentionsBot: true });
    expect((await mentioned).content).toBe(`<@${fake.bot.id}> hey`);
    // no DirectMessages intent: the DM is not delivered at all, the next guild message is
    const next = nextUserMessage(client);
    fake.sendUserMessage({ channelId: '1300000000000000007', author: ALICE, content: 'dm', guild: false });
    fake.sendUserMessage({ channelId: GENERAL, author: ALICE, content: 'guild', mentionsBot: true });
    expect((await next).guildId).toBe(fake.guild.id);
  });
});

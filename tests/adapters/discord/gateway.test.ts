// Kazma on Discord survives a lost gateway: after an abnormal drop (1006) discord.js RESUMEs and what was
// said meanwhile is replayed and answered once; a reply sent while the gateway is down goes out over
// REST, once, even through a 502; a connection whose heartbeats go unanswered is replaced.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../fakes/llm-server.ts';
import { DM_OF, MAYA, startHarness, type Harness } from './harness.ts';

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

const DM = DM_OF[MAYA.id]!;
const say = (content: string) => h!.say({ channelId: DM, author: MAYA, content, guild: false });
const replies = () =>
  h!.fake
    .messages(DM)
    .filter((m) => m.author.id === h!.fake.bot.id)
    .map((m) => m.content);

describe('a lost gateway connection', () => {
  it('after a drop (1006) the client resumes; a message sent meanwhile and the next one are answered once', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL });
    say('before');
    await h.settled();
    h.fake.dropConnection();
    say('while away'); // buffered by the session, replayed on RESUME
    await h.fake.calls.waitFor('GATEWAY RESUME');
    say('after');
    await h.settled();
    expect(replies()).toEqual(['echo: before', 'echo: while away', 'echo: after']);
    expect(h.fake.sessions).toMatchObject({ identifies: 1, resumes: 1 });
  });

  it('a reply sent while the gateway is down goes out over REST once, through a 502; then the next message is answered', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL });
    say('first');
    await h.settled();
    llm.hangNext(1, 800);
    say('slow');
    await h.fake.calls.waitFor('POST /channels/:id/typing', (c) => c.params.id === DM);
    // 4009: the session is over, so discord.js must IDENTIFY again, which it spaces ≥5 s apart: an outage.
    h.fake.dropConnection({ code: 4009 });
    h.fake.failNext('POST /channels/:id/messages', { status: 502 });
    const reply = await h.fake.calls.waitFor(
      'POST /channels/:id/messages',
      (c) => c.status === 200 && c.body.content === 'echo: slow',
      5000,
    );
    await expect.poll(() => h!.fake.sessions.identifies, { timeout: 15_000 }).toBe(2);
    const reidentified = h.fake.calls.all('GATEWAY IDENTIFY').at(-1)!;
    expect(reply.at).toBeLessThan(reidentified.at);
    expect(h.fake.calls.count('POST /channels/:id/messages', (c) => c.status === 502)).toBe(1);
    say('back again');
    await h.settled();
    expect(replies()).toEqual(['echo: first', 'echo: slow', 'echo: back again']);
  });

  it('when heartbeats stop being acknowledged the zombie connection is replaced and the next message answered', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL, fakeOptions: { heartbeatIntervalMs: 300 } });
    h.fake.stopAckingHeartbeats();
    await h.fake.calls.waitFor('GATEWAY RESUME', undefined, 8000);
    say('still there?');
    await h.settled();
    expect(replies()).toEqual(['echo: still there?']);
  });
});

// Slack's chat streaming API (chat.startStream / appendStream / stopStream) for answers in threads, with the
// real adapter against the fake Slack and a fake model writing ~60 words over ~2.5 s: the partial shows
// before the model's last chunk, the one message ends exactly as the answer sent whole looks (text and
// blocks), the stream is stopped, and a workspace without the API gets postMessage + chat.update, asked once.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { startFakeSlack, type StoredMessage } from '../fakes/slack/index.ts';
import { eventually } from '../helpers/eventually.ts';
import { dmOf, MAYA, startSlackHarness, type SlackHarness } from '../adapters/slack/harness.ts';

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
});

const ANSWER = Array.from({ length: 12 }, (_, i) => `Step ${i + 1}: **check** the مرحبا بالعالم 👨‍👩‍👧 logs.`).join(
  ' ',
);
const PACED = { text: ANSWER, pacing: { words: true, delayMs: 40 } };
const DM = dmOf(MAYA);
const CHANNEL = 'C0TEAM';

interface Where {
  channel: string;
  /** Maya's first message: a thread in the DM, a mention in the channel (answered in its thread). */
  opening: string;
  /** The opening is answered in the thread (a mention), not beside it (a DM). */
  inThread: number;
}
const IN_DM: Where = { channel: DM, opening: 'a new thread', inThread: 0 };
const IN_CHANNEL: Where = { channel: CHANNEL, opening: '<@UBOTKAZMA> hello', inThread: 1 };

/** Starts Kazma (streaming as given) and opens a thread with Maya in `where`; returns its ts. */
async function open(where: Where, streaming: boolean, fake?: Parameters<typeof startFakeSlack>[0]): Promise<string> {
  h = await startSlackHarness({
    modelBaseUrl: llm.baseURL,
    config: { streaming: { enabled: streaming, start_after: '200ms' } },
    ...(fake && { fake: await startFakeSlack(fake) }),
  });
  const { ts } = await h.fake.signer.sendMessage(h.url, { channel: where.channel, user: MAYA.id, text: where.opening });
  await h.settled();
  return ts;
}

/** The bot's replies in the thread after its answer to the opening. */
const replies = (where: Where, thread: string): StoredMessage[] =>
  h!.fake
    .messages(where.channel)
    .filter((m) => m.user === h!.fake.identity.botUserId && m.thread_ts === thread)
    .slice(where.inThread);

/** Maya asks in the thread; resolves when the first reply shows, with the time it showed. */
async function ask(where: Where, thread: string): Promise<{ shownAt: number }> {
  llm.script(PACED);
  await h!.fake.signer.sendMessage(h!.url, { channel: where.channel, user: MAYA.id, text: 'how?', thread_ts: thread });
  await eventually(
    () => replies(where, thread),
    (r) => r.length > 0,
    'the first reply',
  );
  return { shownAt: Date.now() };
}

/** What a message looks like, without the block ids Slack generates. */
const look = (m: StoredMessage) => ({
  text: m.text,
  blocks: m.blocks?.map(({ block_id: _id, ...block }) => block),
});

/** The answer sent whole (streaming off) in `where`, as it looks. */
async function whole(where: Where) {
  const thread = await open(where, false);
  await ask(where, thread);
  await h!.settled();
  const messages = replies(where, thread).map(look);
  await h!.close();
  h = undefined;
  return messages;
}

it.each([
  ['a DM thread', IN_DM],
  ['a channel thread', IN_CHANNEL],
])('streams the answer in %s, ending as the answer sent whole', async (_name, where) => {
  const expected = await whole(where);
  const thread = await open(where, true);
  const { shownAt } = await ask(where, thread);
  await h!.settled();
  expect(shownAt).toBeLessThan(llm.attempts.at(-1)!.endedAt!);
  const bot = replies(where, thread);
  expect(bot.map(look)).toEqual(expected);
  const calls = h!.fake.calls;
  const [start, ...again] = calls.of('chat.startStream').filter((c) => c.ok);
  expect(again).toHaveLength(0);
  expect(start!.args).toMatchObject({ channel: where.channel, thread_ts: thread });
  // Whom it is for: required in a channel, sent in a DM too (streams.ts says why).
  expect(start!.args).toMatchObject({ recipient_user_id: MAYA.id, recipient_team_id: h!.fake.identity.teamId });
  expect(calls.of('chat.appendStream').filter((c) => c.ok).length).toBeGreaterThan(0);
  // Stopped once, then edited once into the final answer: nothing was posted for it.
  expect(calls.of('chat.stopStream').filter((c) => c.ok)).toHaveLength(1);
  expect(calls.of('chat.update').filter((c) => c.ok && c.args.ts === bot[0]!.ts)).toHaveLength(1);
  expect(calls.of('chat.postMessage').filter((c) => c.args.thread_ts === thread)).toHaveLength(where.inThread);
});

it('falls back to postMessage + chat.update where the workspace has no streaming API, and asks once', async () => {
  const expected = await whole(IN_DM);
  const thread = await open(IN_DM, true, { streaming: false });
  const first = await ask(IN_DM, thread);
  await h!.settled();
  expect(first.shownAt).toBeLessThan(llm.attempts.at(-1)!.endedAt!);
  expect(replies(IN_DM, thread).map(look)).toEqual(expected);
  expect(replies(IN_DM, thread)[0]!.edits.length).toBeGreaterThan(1); // grown by chat.update
  await ask(IN_DM, thread);
  await h!.settled();
  expect(replies(IN_DM, thread).map(look)).toEqual([...expected, ...expected]);
  const starts = h!.fake.calls.of('chat.startStream');
  expect(starts.map((c) => c.error)).toEqual(['unknown_method']);
});

it('a stream Slack ended before the answer did goes on as an updated message', async () => {
  const expected = await whole(IN_DM);
  const thread = await open(IN_DM, true, { streamLifetimeMs: 600 });
  await ask(IN_DM, thread);
  await h!.settled();
  expect(replies(IN_DM, thread).map(look)).toEqual(expected);
  const over = h!.fake.calls.of('chat.appendStream').filter((c) => c.error === 'message_not_in_streaming_state');
  expect(over).toHaveLength(1);
  expect(h!.fake.calls.of('chat.startStream').filter((c) => c.ok)).toHaveLength(1);
});

// The fake's chat streaming API checked with the real WebClient: a stream is a thread reply, shown to one
// named person outside a DM, grown by appends, over once stopped or expired; a message still streaming is
// not updated; a workspace without the API answers unknown_method.
import { afterEach, expect, it } from 'vitest';
import { webApi } from '@slack/bolt';
import { eventually } from '../../helpers/eventually.ts';
import { startFakeSlack, type FakeSlack, type FakeSlackOptions } from './index.ts';

let fake: FakeSlack;
afterEach(async () => {
  await fake.close();
});

async function start(options: FakeSlackOptions = {}) {
  fake = await startFakeSlack({ teamId: 'T0TEST', ...options });
  return new webApi.WebClient(fake.botToken, {
    slackApiUrl: fake.apiUrl,
    retryConfig: { retries: 0 },
    logLevel: webApi.LogLevel.ERROR,
  });
}
const error = (p: Promise<unknown>) =>
  p.then(
    () => 'none',
    (e: { data?: { error?: string } }) => e.data?.error ?? String(e),
  );
const DM = 'D0MAYA';
const CHANNEL = 'C0TEAM';

/** A user's message in `channel`, to stream under. */
async function parent(client: webApi.WebClient, channel: string): Promise<string> {
  const { ts } = await client.chat.postMessage({ channel, text: 'a question' });
  return ts!;
}

it('grows a thread reply by appends and ends it on stop', async () => {
  const client = await start();
  const thread = await parent(client, DM);
  const started = await client.chat.startStream({ channel: DM, thread_ts: thread, markdown_text: 'Hel' });
  await client.chat.appendStream({ channel: DM, ts: started.ts!, markdown_text: 'lo **there**' });
  const reply = fake.messages(DM).find((m) => m.ts === started.ts)!;
  expect([reply.text, reply.thread_ts]).toEqual(['Hello **there**', thread]);
  expect(await error(client.chat.update({ channel: DM, ts: started.ts!, text: 'x' }))).toBe('cant_update_message');
  await client.chat.stopStream({ channel: DM, ts: started.ts!, markdown_text: '!' });
  expect(fake.messages(DM).find((m) => m.ts === started.ts)!.text).toBe('Hello **there**!');
  expect(await error(client.chat.appendStream({ channel: DM, ts: started.ts!, markdown_text: 'more' }))).toBe(
    'message_not_in_streaming_state',
  );
  expect(await error(client.chat.stopStream({ channel: DM, ts: started.ts! }))).toBe('message_not_in_streaming_state');
  await client.chat.update({ channel: DM, ts: started.ts!, text: 'edited after the stream' });
  expect(fake.messages(DM).find((m) => m.ts === started.ts)!.text).toBe('edited after the stream');
});

it('streams only in a thread, and in a channel only to a named person of the workspace', async () => {
  const client = await start();
  const thread = await parent(client, CHANNEL);
  const start_ = (args: Record<string, string>) =>
    error(client.chat.startStream({ channel: CHANNEL, markdown_text: 'hi', ...args } as never));
  expect(await start_({})).toBe('invalid_arguments');
  expect(await start_({ thread_ts: '1.000009' })).toBe('thread_not_found');
  expect(await start_({ thread_ts: thread })).toBe('invalid_arguments');
  expect(await start_({ thread_ts: thread, recipient_user_id: 'U0MAYA', recipient_team_id: 'T0ELSE' })).toBe(
    'team_not_found',
  );
  expect(await start_({ thread_ts: thread, recipient_user_id: 'U0MAYA', recipient_team_id: 'T0TEST' })).toBe('none');
  expect(
    await start_({
      thread_ts: thread,
      recipient_user_id: 'U0MAYA',
      recipient_team_id: 'T0TEST',
      markdown_text: 'x'.repeat(12_001),
    }),
  ).toBe('msg_too_long');
});

it('ends a stream on its own after its lifetime', async () => {
  const client = await start({ streamLifetimeMs: 50 });
  const thread = await parent(client, DM);
  const { ts } = await client.chat.startStream({ channel: DM, thread_ts: thread, markdown_text: 'a' });
  await eventually(
    () => error(client.chat.appendStream({ channel: DM, ts: ts!, markdown_text: 'b' })),
    (answer) => answer === 'message_not_in_streaming_state',
    'the stream to end',
  );
});

it('answers unknown_method in a workspace without the API', async () => {
  const client = await start({ streaming: false });
  const thread = await parent(client, DM);
  expect(await error(client.chat.startStream({ channel: DM, thread_ts: thread, markdown_text: 'a' }))).toBe(
    'unknown_method',
  );
});

// A long reply goes out as several messages. The platform takes the second part, but the process is
// killed (SIGKILL) before it reads the platform's answer, so the outbox never learns that part went out.
// The next start goes on with the reply from the first part it does not know of — that second part again.
// Each part is posted under its delivery's key, the same on every attempt: Discord's enforced nonce hands
// back the message it already has; on Slack the key is in the message's metadata, and the resumed attempt
// finds it in the history before posting. Every part shows once, in order. (Telegram has neither: there a
// part taken in the instant of a kill can show twice, as docs/chat.md says.)
import { expect, it } from 'vitest';
import { longReply } from '../contract/support.ts';
import { DM_OF, MAYA } from '../adapters/discord/harness.ts';
import { startFakeDiscord } from '../fakes/discord/fake-discord.ts';
import { startFakeSlack } from '../fakes/slack/index.ts';
import { dmOf, MAYA as SLACK_MAYA } from '../adapters/slack/harness.ts';
import { eventually } from '../helpers/eventually.ts';
import { cleanupAfterEach, kazmaOnPostgres } from '../helpers/process-rig.ts';

const cleanup = cleanupAfterEach();

/** Kazma on a fresh PostgreSQL with `platform` (its YAML lines), replies sent whole; `start` runs it. */
function onPostgres(platform: string) {
  return kazmaOnPostgres(
    cleanup,
    `
${platform}
streaming: { enabled: false }
turns: { lease_ttl: 2s }
runs: { sweep_interval: 2s }
`,
  );
}

it('killed after Discord took a part but before its answer: the next start does not post that part again', {
  timeout: 240_000,
}, async () => {
  const fake = await startFakeDiscord();
  cleanup.push(() => fake.close());
  const { llm, start } = await onPostgres(
    `access: { operators: [{ name: Maya, discord: "${MAYA.id}" }], welcome: false }
discord: { enabled: true, token: "${fake.token}", api: "${fake.api}" }`,
  );
  const dm = DM_OF[MAYA.id]!;
  const reply = longReply(2000);
  const first = start();
  await first.waitForLog((line) => line.msg === 'discord started', 180_000);
  llm.script({ text: reply.markdown });
  // The first part goes through; Discord takes the second, and its answer never reaches the process.
  const hold = fake.holdAnswer('POST /channels/:id/messages', { after: 1 });
  fake.sendUserMessage({ channelId: dm, author: MAYA, content: 'tell me a long story', guild: false });
  await hold.held;
  first.kill('SIGKILL');
  await first.exited;
  hold.release();
  const bot = () => fake.messages(dm).filter((m) => m.author.id === fake.bot.id);
  expect(bot()).toHaveLength(2);

  const second = start();
  const texts = await eventually(
    () => bot().map((m) => m.content),
    (shown) => (shown.some((t) => t.includes(reply.lastLine.slice(0, 40))) ? shown : undefined),
    'the rest of the reply',
    { timeoutMs: 60_000 },
  );
  await new Promise((resolve) => setTimeout(resolve, 3000)); // a duplicate would show now
  expect(bot().map((m) => m.content)).toEqual(texts);
  expect(texts.length).toBeGreaterThanOrEqual(3);
  const shownLines = texts.flatMap((t) => t.split('\n')).filter((line) => line !== '');
  expect(shownLines).toEqual(reply.markdown.split('\n').filter((line) => line !== ''));
  second.kill('SIGTERM');
  await second.exited;
});

it('the same on Slack: the resumed attempt finds the part by its key in the history and does not post it again', {
  timeout: 240_000,
}, async () => {
  const fake = await startFakeSlack();
  cleanup.push(() => fake.close());
  const { llm, start } = await onPostgres(
    `access: { operators: [{ name: Maya, slack: ${SLACK_MAYA.id} }], welcome: false }
slack: { enabled: true, token: "${fake.botToken}", signing_secret: "${fake.signingSecret}", api_url: "${fake.apiUrl}" }`,
  );
  const dm = dmOf(SLACK_MAYA);
  const reply = longReply(40_000); // Slack takes 40,000 characters a message: three parts
  const first = start();
  const url = `http://127.0.0.1:${await first.port()}/slack/events`;
  await first.waitForLog((line) => line.msg === 'slack started', 180_000);
  llm.script({ text: reply.markdown });
  const hold = fake.holdAnswer('chat.postMessage', { after: 1 });
  await fake.signer.sendMessage(url, { channel: dm, user: SLACK_MAYA.id, text: 'tell me a long story' });
  await hold.held;
  first.kill('SIGKILL');
  await first.exited;
  hold.release();
  const bot = () => fake.messages(dm).filter((m) => m.user === fake.identity.botUserId);
  expect(bot()).toHaveLength(2);

  const second = start();
  const texts = await eventually(
    () => bot().map((m) => m.text),
    (shown) => (shown.some((t) => t.includes(reply.lastLine.slice(0, 40))) ? shown : undefined),
    'the rest of the reply',
    { timeoutMs: 60_000 },
  );
  await new Promise((resolve) => setTimeout(resolve, 3000)); // a duplicate would show now
  expect(bot().map((m) => m.text)).toEqual(texts);
  expect(texts.length).toBeGreaterThanOrEqual(3);
  expect(new Set(texts).size).toBe(texts.length);
  const paragraphs = texts.join('\n').match(/Paragraph \d+:/g)!;
  expect(paragraphs).toEqual(reply.lines.filter((l) => l.startsWith('Paragraph')).map((l) => l.split(' bold')[0]));
  second.kill('SIGTERM');
  await second.exited;
});

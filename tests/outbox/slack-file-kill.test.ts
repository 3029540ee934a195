// send_file to Slack across a kill -9. Slack's upload is three steps (files.getUploadURLExternal, the bytes
// POSTed, files.completeUploadExternal shares the file) and carries no delivery key, so the file's id is
// recorded with the outbox row before the bytes go. A process killed before it recorded the end is taken
// up at the next start: Slack is asked where that file is shared (files.info) — shared here already, it
// is recorded sent; not yet, it is shared now (or uploaded again when Slack no longer has it). Either way
// the file shows exactly once, with the bytes approved, and is not "delivery unknown".
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { dmOf, MAYA } from '../adapters/slack/harness.ts';
import { startFakeSlack } from '../fakes/slack/index.ts';
import { eventually } from '../helpers/eventually.ts';
import { cleanupAfterEach, kazmaOnEmbedded } from '../helpers/process-rig.ts';

const cleanup = cleanupAfterEach();

/** Kazma on the embedded database (its recovery at start takes up what a killed run left mid-send). */
async function setup() {
  const fake = await startFakeSlack();
  cleanup.push(() => fake.close());
  const dir = mkdtempSync(join(tmpdir(), 'kazma-test-'));
  const workspace = join(dir, 'ws');
  mkdirSync(workspace);
  const bytes = randomBytes(150_000);
  writeFileSync(join(workspace, 'report.bin'), bytes);
  const { llm, start: spawn } = await kazmaOnEmbedded(
    cleanup,
    `
access: { operators: [{ name: Maya, slack: ${MAYA.id} }], welcome: false }
slack: { enabled: true, token: "${fake.botToken}", signing_secret: "${fake.signingSecret}", api_url: "${fake.apiUrl}" }
tools: { workspace: "${workspace}" }
streaming: { enabled: false }
`,
    { dir },
  );
  const start = async () => {
    const kazma = spawn();
    const url = `http://127.0.0.1:${await kazma.port()}/slack/events`;
    await kazma.waitForLog((line) => line.msg === 'slack started', 180_000);
    return { kazma, url };
  };
  return { fake, llm, bytes, start };
}

/** Asks for the file, approves the card, and kills the process once `route`'s answer is held. */
async function sendAndKill(s: Awaited<ReturnType<typeof setup>>, route: string) {
  const { fake, llm } = s;
  const first = await s.start();
  llm.script({ toolCalls: [{ name: 'send_file', args: { path: 'report.bin', caption: 'the report 📎' } }] });
  await fake.signer.sendMessage(first.url, { channel: dmOf(MAYA), user: MAYA.id, text: 'send me the report' });
  const card = await eventually(
    async () => fake.messages(dmOf(MAYA)),
    (ms) => ms.find((m) => m.blocks?.some((b) => b.type === 'actions')),
    'the approval card',
    { timeoutMs: 60_000 },
  );
  const once = (card.blocks!.find((b) => b.type === 'actions')!.elements as Array<{ action_id: string }>).find((e) =>
    e.action_id.endsWith(':once'),
  )!;
  const hold = fake.holdAnswer(route);
  void fake.signer
    .sendBlockAction(first.url, { channel: dmOf(MAYA), user: MAYA.id, messageTs: card.ts, actionId: once.action_id })
    .catch(() => undefined); // the process may be gone before it answers
  await hold.held;
  first.kazma.kill('SIGKILL');
  await first.kazma.exited;
  hold.release();
}

/** Restarts, waits for the turn to end with a word to the chat, and a little more for a duplicate. */
async function restartAndSettle(s: Awaited<ReturnType<typeof setup>>) {
  const second = await s.start();
  await eventually(
    () => s.fake.uploads,
    (ups) => ups.length > 0,
    'the file to show after the restart',
    { timeoutMs: 90_000 },
  );
  await new Promise((resolve) => setTimeout(resolve, 3000)); // a duplicate would show now
  return second.kazma;
}

it('killed after Slack shared the file, before its answer: found shared, recorded sent, not uploaded again', {
  timeout: 300_000,
}, async () => {
  const s = await setup();
  await sendAndKill(s, 'files.completeUploadExternal');
  expect(s.fake.uploads).toHaveLength(1);
  const second = await restartAndSettle(s);
  expect(s.fake.uploads).toHaveLength(1);
  expect(s.fake.uploads[0]!.bytes.equals(s.bytes)).toBe(true);
  expect(s.fake.uploads[0]!.comment).toBe('the report 📎');
  expect(s.fake.calls.count('files.getUploadURLExternal')).toBe(1);
  expect(s.fake.calls.count('files.info')).toBe(1);
  expect(second.logs().some((l) => String(l.msg).includes('marked unknown'))).toBe(false);
  second.kill('SIGTERM');
  await second.exited;
});

it('killed after the bytes went up, before the file was shared: shared once at the next start', {
  timeout: 300_000,
}, async () => {
  const s = await setup();
  await sendAndKill(s, 'upload');
  expect(s.fake.uploads).toHaveLength(0);
  const second = await restartAndSettle(s);
  expect(s.fake.uploads).toHaveLength(1);
  expect(s.fake.uploads[0]!.bytes.equals(s.bytes)).toBe(true);
  expect(s.fake.uploads[0]!.channel).toBe(dmOf(MAYA));
  expect(s.fake.calls.count('files.getUploadURLExternal')).toBe(1); // the bytes already up are shared
  expect(s.fake.uploads[0]!.comment).toBe('the report 📎');
  second.kill('SIGTERM');
  await second.exited;
});

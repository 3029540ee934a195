// send_file across a kill -9: Discord takes the approved upload, but the process is killed before it reads
// Discord's answer, so the outbox never learns the file went out. The next start must not upload it again:
// the cut-short delivery is left "delivery unknown" rather than sent twice (and a retry of it would carry the
// same enforced nonce). The file shows once, with the bytes that were approved, and the turn ends.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { DM_OF, MAYA } from '../adapters/discord/harness.ts';
import { startFakeDiscord } from '../fakes/discord/fake-discord.ts';
import { eventually } from '../helpers/eventually.ts';
import { cleanupAfterEach, kazmaOnPostgres } from '../helpers/process-rig.ts';

const cleanup = cleanupAfterEach();

it('killed after Discord took the upload but before its answer: the file shows once after the restart', {
  timeout: 240_000,
}, async () => {
  const fake = await startFakeDiscord();
  cleanup.push(() => fake.close());
  const dir = mkdtempSync(join(tmpdir(), 'kazma-test-'));
  const workspace = join(dir, 'ws');
  mkdirSync(workspace);
  const bytes = randomBytes(200_000);
  writeFileSync(join(workspace, 'report.bin'), bytes);
  const { llm, start } = await kazmaOnPostgres(
    cleanup,
    `
access: { operators: [{ name: Maya, discord: "${MAYA.id}" }], welcome: false }
discord: { enabled: true, token: "${fake.token}", api: "${fake.api}" }
tools: { workspace: "${workspace}" }
streaming: { enabled: false }
turns: { lease_ttl: 2s }
runs: { sweep_interval: 2s }
`,
    { dir },
  );
  const dm = DM_OF[MAYA.id]!;
  const first = start();
  await first.waitForLog((line) => line.msg === 'discord started', 180_000);
  llm.script({ toolCalls: [{ name: 'send_file', args: { path: 'report.bin', caption: 'the report 📎' } }] });
  fake.sendUserMessage({ channelId: dm, author: MAYA, content: 'send me the report', guild: false });
  const card = await eventually(
    () => fake.messages(dm).find((m) => m.components.length > 0),
    (found) => found,
    'the approval card',
    { timeoutMs: 60_000 },
  );
  // The next message posted is the upload: Discord stores it, and its answer never reaches the process.
  const hold = fake.holdAnswer('POST /channels/:id/messages');
  const once = card.components[0].components.find((b: { custom_id: string }) => b.custom_id.endsWith(':once'));
  fake.clickButton({ channelId: dm, messageId: card.id, user: MAYA, customId: once.custom_id });
  await hold.held;
  first.kill('SIGKILL');
  await first.exited;
  hold.release();
  const uploads = () => fake.messages(dm).filter((m) => m.files.length > 0);
  expect(uploads()).toHaveLength(1);

  const second = start();
  await second.waitForLog((line) => line.msg === 'discord started', 180_000);
  // The turn is taken up again and ends with a word to the chat; a second upload would show by then.
  await eventually(
    () => fake.messages(dm).filter((m) => m.author.id === fake.bot.id && m.files.length === 0 && !m.components.length),
    (texts) => texts.length > 0,
    'the turn to end after the restart',
    { timeoutMs: 90_000 },
  );
  await new Promise((resolve) => setTimeout(resolve, 3000)); // a duplicate would show now
  expect(uploads()).toHaveLength(1);
  expect(uploads()[0]!.content).toBe('the report 📎');
  expect(uploads()[0]!.files[0]!.data.equals(bytes)).toBe(true);
  second.kill('SIGTERM');
  await second.exited;
});

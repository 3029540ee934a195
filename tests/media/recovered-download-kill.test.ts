// A photo's turn across a kill -9: the photo is downloaded and the model is asked, but the process is killed
// before the model answers, so nothing of the turn reached the checkpoint. The next start takes the turn up
// again from its inbox row, and must read the photo from the copy kept under data_dir/files — the same
// bytes — without asking Telegram for the file a second time.
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { MAYA } from '../adapters/telegram/harness.ts';
import type { ChatRequestBody } from '../fakes/llm-server.ts';
import { startFakeTelegram } from '../fakes/telegram/index.ts';
import { eventually } from '../helpers/eventually.ts';
import { cleanupAfterEach, kazmaOnPostgres } from '../helpers/process-rig.ts';

const cleanup = cleanupAfterEach();

/** The image parts of the person's last message in a model request, as bytes. */
function imagesOf(body: ChatRequestBody | undefined): Buffer[] {
  const user = [...(body?.messages ?? [])].reverse().find((m) => m.role === 'user');
  const parts = (Array.isArray(user?.content) ? user.content : []) as Array<{ image_url?: { url: string } }>;
  return parts.flatMap((p) => (p.image_url ? [Buffer.from(p.image_url.url.split(',')[1]!, 'base64')] : []));
}

it('killed after the photo was downloaded, before the answer: the next start reads the kept copy', {
  timeout: 240_000,
}, async () => {
  const fake = await startFakeTelegram();
  cleanup.push(() => fake.close());
  const { llm, dir, start } = await kazmaOnPostgres(
    cleanup,
    `
access: { operators: [{ name: Maya, telegram: "${MAYA.id}" }] }
telegram: { enabled: true, token: "${fake.token}", api_root: "${fake.apiRoot}" }
streaming: { enabled: false }
turns: { lease_ttl: 2s }
runs: { sweep_interval: 2s }
`,
  );
  const first = start();
  await first.waitForLog((line) => line.msg === 'telegram started', 180_000);
  const photo = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(50_000)]);
  const hold = llm.holdNext(1);
  fake.sendUserPhoto({ chatId: MAYA.id, from: MAYA, sizes: [new Uint8Array(photo)], caption: 'what is this?' });
  // The model was asked: the photo is downloaded and read. The answer never reaches this process.
  await eventually(
    () => llm.requests.length,
    (n) => n === 1,
    'the model to be asked about the photo',
    { timeoutMs: 60_000 },
  );
  first.kill('SIGKILL');
  await first.exited;
  hold.release();
  const photoDownloads = () => fake.downloads.filter((d) => d.path.startsWith('photos/'));
  expect(photoDownloads()).toHaveLength(1);
  expect(imagesOf(llm.requests[0])[0]!.equals(photo)).toBe(true);
  // Kept under its SHA-256, before the model saw it.
  expect(readdirSync(join(dir, 'kazma-data', 'files')).length).toBeGreaterThanOrEqual(1);

  const second = start();
  await second.waitForLog((line) => line.msg === 'telegram started', 180_000);
  await eventually(
    async () => fake.messages(MAYA.id),
    (ms) => ms.find((m) => m.text === 'echo: what is this?'),
    'the answer after the restart',
    { timeoutMs: 90_000 },
  );
  expect(photoDownloads()).toHaveLength(1);
  expect(fake.calls.of('getFile')).toHaveLength(1);
  const images = imagesOf(llm.requests.at(-1));
  expect(images).toHaveLength(1);
  expect(images[0]!.equals(photo)).toBe(true);
  second.kill('SIGTERM');
  await second.exited;
});

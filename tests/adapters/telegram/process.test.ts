// End to end through the real process: `kazma doctor` and `kazma start` spawned with a kazma.yaml whose
// telegram.api_root points at the fake Bot API and model.base_url at the fake LLM (both in this process).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../fakes/llm-server.ts';
import { startFakeTelegram, type FakeTelegram } from '../../fakes/telegram/index.ts';
import { seedPgliteDataDir } from '../../helpers/databases.ts';
import { KazmaProcess, runKazma, writeConfig } from '../../helpers/kazma-process.ts';
import { eventually } from '../../helpers/eventually.ts';
import { textPdf } from '../../helpers/pdf.ts';
import { MAYA } from './harness.ts';

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function setup(): Promise<{ fake: FakeTelegram; llm: FakeLlm; config: string; dir: string }> {
  const fake = await startFakeTelegram();
  const llm = await startFakeLlm();
  cleanup.push(
    () => fake.close(),
    () => llm.close(),
  );
  const { dir, path } = writeConfig(`
http: { port: 0 }
model: { name: fake-model, base_url: "${llm.baseURL}", max_retries: 1 }
access: { operators: [{ name: Maya, telegram: "${MAYA.id}" }] }
telegram: { enabled: true, token: "${fake.token}", api_root: "${fake.apiRoot}" }
shutdown: { timeout: 5s }
`);
  await seedPgliteDataDir(join(dir, 'kazma-data'));
  return { fake, llm, config: path, dir };
}

describe('kazma with Telegram, as a process', () => {
  it('doctor checks the token and the webhook state', async () => {
    const { config } = await setup();
    const { code, stdout } = await runKazma(['doctor', '--config', config], {
      env: { DATABASE_URL: undefined, REDIS_URL: undefined },
    });
    expect(stdout).toMatch(
      /✓ telegram token: bot @kazma_test_bot \(id 7000000001\) answers at http:\/\/127\.0\.0\.1:\d+/,
    );
    expect(stdout).toMatch(/✓ telegram webhook: no webhook set, as polling mode needs/);
    expect(code).toBe(0);
  });

  it('message → danger tool → card → the approver taps → the tool runs once → reply; the card says who approved', async () => {
    const { fake, llm, config, dir } = await setup();
    llm.script({ toolCalls: [{ name: 'write_file', args: { path: 'note.txt', content: 'x', append: true } }] });
    const kazma = new KazmaProcess(['start', '--config', config], {
      env: { DATABASE_URL: undefined, REDIS_URL: undefined },
    });
    cleanup.push(() => kazma.kill('SIGKILL'));
    await kazma.waitForLog((line) => line.msg === 'telegram started');

    fake.sendUserMessage({ chatId: MAYA.id, from: MAYA, text: 'please write the note' });
    const card = await eventually(
      async () => fake.messages(MAYA.id),
      (ms) => ms.find((m) => m.reply_markup),
      'the approval card',
    );
    expect(card.text).toContain('write_file');
    const once = card.reply_markup!.inline_keyboard.flat().find((b) => b.callback_data?.endsWith(':once'))!;
    const tap = fake.tapButton({ chatId: MAYA.id, messageId: card.message_id, from: MAYA, data: once.callback_data! });

    await eventually(
      async () => fake.messages(MAYA.id),
      (ms) => ms.find((m) => m.text === 'done: appended 1 bytes to note.txt'),
      'the reply after the tool ran',
    );
    const edited = await eventually(
      async () => fake.messages(MAYA.id),
      (ms) => ms.find((m) => m.message_id === card.message_id && !m.reply_markup),
      'the edited card',
    );
    expect(edited.text).toMatch(/Approved once by Maya on Telegram at \d\d:\d\d UTC/);
    const answer = await fake.calls.waitFor(
      'answerCallbackQuery',
      (c) => c.body.callback_query_id === tap.callback_query!.id,
    );
    expect(answer.body.text).toMatch(/^Approved once by Maya/);
    expect(readFileSync(join(dir, 'kazma-workspace', 'note.txt'), 'utf8')).toBe('x');
    expect(fake.calls.count('sendChatAction')).toBeGreaterThanOrEqual(1);

    kazma.kill('SIGTERM');
    expect((await kazma.exited).code).toBe(0);
    expect(readFileSync(join(dir, 'kazma-workspace', 'note.txt'), 'utf8')).toBe('x');
  });

  // What users run is the bundle: the document worker is a file of its own that imports unpdf, resolved
  // from Kazma's folder, and an import esbuild links differently once broke a tool in dist/ alone.
  it('reads a photo and a PDF in the compiled build', async () => {
    const { fake, llm, config } = await setup();
    const kazma = new KazmaProcess(['start', '--config', config], {
      env: { DATABASE_URL: undefined, REDIS_URL: undefined },
    });
    cleanup.push(() => kazma.kill('SIGKILL'));
    await kazma.waitForLog((line) => line.msg === 'telegram started');
    const photo = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from('pixels')]);
    fake.sendUserPhoto({ chatId: MAYA.id, from: MAYA, sizes: [new Uint8Array(photo)], caption: 'look' });
    await eventually(
      async () => fake.messages(MAYA.id),
      (ms) => ms.find((m) => m.text === 'echo: look'),
      'the answer to the photo',
    );
    const parts = llm.requests.at(-1)?.messages?.at(-1)?.content as Array<{ image_url?: { url: string } }>;
    expect(parts.find((p) => p.image_url)?.image_url?.url).toBe(`data:image/jpeg;base64,${photo.toString('base64')}`);
    const pdf = textPdf(['Read by the bundle']);
    fake.sendUserDocument({ chatId: MAYA.id, from: MAYA, bytes: pdf, fileName: 'b.pdf', mimeType: 'application/pdf' });
    const answer = await eventually(
      async () => fake.messages(MAYA.id),
      (ms) => ms.find((m) => m.text.includes('b.pdf')),
      'the answer to the PDF',
    );
    expect(answer.text).toContain('Read by the bundle');
    expect(answer.text).toContain('«outside:');
    kazma.kill('SIGTERM');
    expect((await kazma.exited).code).toBe(0);
  });
});

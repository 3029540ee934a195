// send_file on Telegram: the model asks, a person approves, and the workspace file is uploaded to the chat
// (sendDocument, sendPhoto for a picture) with its caption, the bytes arriving equal. A path out of the
// workspace (`../`, a link out) is refused before any card; a file over Telegram's limit is refused with it.
import { randomBytes } from 'node:crypto';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../fakes/llm-server.ts';
import { contentText } from '../../fakes/llm-wire.ts';
import { MAYA, startHarness, type Harness } from './harness.ts';

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

/** Approves the newest card in Maya's chat, once. */
async function approve(): Promise<void> {
  const card = [...h!.fake.messages(MAYA.id)].reverse().find((m) => m.reply_markup)!;
  const data = card.reply_markup!.inline_keyboard.flat().find((b) => b.callback_data?.endsWith(':once'))!;
  h!.tap({ chatId: MAYA.id, messageId: card.message_id, from: MAYA, data: data.callback_data! });
  await h!.settled();
}

/** What the tool told the model, from the last request's tool message. */
const toolAnswer = () =>
  contentText([...(llm.requests.at(-1)?.messages ?? [])].reverse().find((m) => m.role === 'tool')?.content);

describe('send_file on Telegram', () => {
  it('uploads a workspace file, approved, with its caption: the bytes arrive equal', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL });
    const bytes = randomBytes(200_000);
    await mkdir(join(h.workspace, 'out'));
    await writeFile(join(h.workspace, 'out/report.bin'), bytes);
    llm.script({ toolCalls: [{ name: 'send_file', args: { path: 'out/report.bin', caption: 'التقرير 📎' } }] });
    h.say({ chatId: MAYA.id, from: MAYA, text: 'send me the report' });
    await h.settled();
    expect(h.fake.uploads).toEqual([]);
    await approve();
    expect(h.fake.uploads).toHaveLength(1);
    const [up] = h.fake.uploads;
    expect(up).toMatchObject({ method: 'sendDocument', chatId: MAYA.id, name: 'report.bin', caption: 'التقرير 📎' });
    expect(up!.bytes.equals(bytes)).toBe(true);
    expect(toolAnswer()).toMatch(/^sent "report\.bin" \(200000 bytes\) to telegram:42/);
  });

  it('sends a picture as a photo', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL });
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(5_000)]);
    await writeFile(join(h.workspace, 'chart.png'), png);
    llm.script({ toolCalls: [{ name: 'send_file', args: { path: 'chart.png' } }] });
    h.say({ chatId: MAYA.id, from: MAYA, text: 'the chart?' });
    await h.settled();
    await approve();
    expect(h.fake.uploads.map((u) => [u.method, u.name, u.bytes.equals(png)])).toEqual([
      ['sendPhoto', 'chart.png', true],
    ]);
  });

  it('refuses ../ and a link out of the workspace before any card, and nothing is uploaded', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL });
    const outside = join(h.workspace, '..', 'secret.txt');
    await writeFile(outside, 'top secret');
    await symlink(outside, join(h.workspace, 'innocent.txt'));
    llm.script(
      { toolCalls: [{ name: 'send_file', args: { path: '../secret.txt' } }] },
      { toolCalls: [{ name: 'send_file', args: { path: 'innocent.txt' } }] },
    );
    h.say({ chatId: MAYA.id, from: MAYA, text: 'send the secret' });
    await h.settled();
    expect(h.fake.messages(MAYA.id).filter((m) => m.reply_markup)).toEqual([]);
    // The last request holds the whole conversation: both calls' answers.
    const told = (llm.requests.at(-1)?.messages ?? [])
      .filter((m) => m.role === 'tool')
      .map((m) => contentText(m.content));
    expect(told).toHaveLength(2);
    expect(told[0]).toMatch(/^refused before any effect: "\.\.\/secret\.txt" is outside the workspace/);
    expect(told[1]).toMatch(/^refused before any effect: "innocent\.txt" is outside the workspace/);
    expect(h.fake.uploads).toEqual([]);
  });

  it('refuses a file over Telegram’s limit for a bot’s upload before any card, naming the limit', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL });
    await writeFile(join(h.workspace, 'huge.bin'), Buffer.alloc(51 * 1024 * 1024));
    llm.script({ toolCalls: [{ name: 'send_file', args: { path: 'huge.bin' } }] });
    h.say({ chatId: MAYA.id, from: MAYA, text: 'send the big one' });
    await h.settled();
    expect(h.fake.messages(MAYA.id).filter((m) => m.reply_markup)).toEqual([]);
    expect(toolAnswer()).toMatch(/over the 52428800-byte limit for a bot's upload to telegram/);
    expect(h.fake.uploads).toEqual([]);
  });

  it('refuses a target on a platform Kazma is not connected to, before any card', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL });
    await writeFile(join(h.workspace, 'a.txt'), 'a');
    llm.script({ toolCalls: [{ name: 'send_file', args: { path: 'a.txt', to: 'discord:123456789012345678' } }] });
    h.say({ chatId: MAYA.id, from: MAYA, text: 'send it to discord' });
    await h.settled();
    expect(h.fake.messages(MAYA.id).filter((m) => m.reply_markup)).toEqual([]);
    expect(toolAnswer()).toBe(
      'refused before any effect: Kazma is not connected to discord, so it cannot send files there',
    );
  });
});

// Files shared with Kazma on Slack: each is downloaded from its url_private with the bot token as a Bearer
// header (never a URL the model sees), an image goes to the model as a data: URL and a document as fenced
// text, in the same user message as the words.
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../fakes/llm-server.ts';
import { contentText } from '../../fakes/llm-wire.ts';
import { textPdf } from '../../helpers/pdf.ts';
import { startFakeSlack } from '../../fakes/slack/index.ts';
import { freshDatabase } from '../../helpers/databases.ts';
import { clickDecision } from './contract-driver.ts';
import { dmOf, MAYA, startSlackHarness, type SlackHarness } from './harness.ts';

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
  llm.requests.length = 0;
  llm.transcriptions.length = 0;
});

type Part = { type: string; text?: string; image_url?: { url: string } };
const lastUser = () => [...(llm.requests.at(-1)?.messages ?? [])].reverse().find((m) => m.role === 'user');

describe('files on Slack', () => {
  it('transcribes an audio clip once, read with the bot token, and sends its words to the model', async () => {
    h = await startSlackHarness({ modelBaseUrl: llm.baseURL });
    const clip = Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), randomBytes(4_000)]);
    llm.hearNext('remind the team about the demo');
    await h.fake.signer.sendMessage(h.url, {
      channel: dmOf(MAYA),
      user: MAYA.id,
      text: '',
      files: [{ name: 'audio_message.webm', mimetype: 'audio/webm', bytes: new Uint8Array(clip) }],
    });
    await h.settled();
    expect(llm.transcriptions.map((t) => [t.fileName, t.fileType, t.bytes.equals(clip)])).toEqual([
      ['audio_message.webm', 'audio/webm', true],
    ]);
    expect(h.fake.fileDownloads).toEqual([{ id: expect.any(String), authorized: true }]);
    expect(contentText(lastUser()?.content)).toContain('remind the team about the demo');
    expect(JSON.stringify(llm.requests)).not.toContain(h.fake.botToken);
  });

  it('sends a shared image to the model as a data: URL, read with the bot token', async () => {
    h = await startSlackHarness({ modelBaseUrl: llm.baseURL });
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(3_000)]);
    await h.fake.signer.sendMessage(h.url, {
      channel: dmOf(MAYA),
      user: MAYA.id,
      text: 'what is this?',
      files: [{ name: 'shot.png', mimetype: 'image/png', bytes: new Uint8Array(png) }],
    });
    await h.settled();
    expect(llm.requests).toHaveLength(1);
    const parts = lastUser()?.content as Part[];
    expect(parts[0]).toEqual({ type: 'text', text: 'what is this?' });
    expect(parts[1]?.image_url?.url).toBe(`data:image/png;base64,${png.toString('base64')}`);
    expect(h.fake.fileDownloads).toEqual([{ id: expect.any(String), authorized: true }]);
    const wire = JSON.stringify(llm.requests);
    expect(wire).not.toContain(h.fake.botToken);
    expect(wire).not.toContain('files-pri');
  });

  it('sends a shared PDF’s text fenced, with its name', async () => {
    h = await startSlackHarness({ modelBaseUrl: llm.baseURL });
    const pdf = textPdf(['Minutes of the Slack meeting']);
    await h.fake.signer.sendMessage(h.url, {
      channel: dmOf(MAYA),
      user: MAYA.id,
      text: '',
      files: [{ name: 'minutes.pdf', mimetype: 'application/pdf', bytes: pdf }],
    });
    await h.settled();
    const text = contentText(lastUser()?.content);
    expect(text).toContain('📎 minutes.pdf, 1 page\n«outside:');
    expect(text).toContain('Minutes of the Slack meeting');
  });

  it('sends the bot token only to Slack: a file elsewhere is refused, its host never asked', async () => {
    h = await startSlackHarness({ modelBaseUrl: llm.baseURL });
    const asked: string[] = [];
    const elsewhere = createServer((req, res) => {
      asked.push(String(req.headers.authorization));
      res.end('x');
    });
    await new Promise<void>((done) => elsewhere.listen(0, '127.0.0.1', done));
    const { port } = elsewhere.address() as AddressInfo;
    const file = {
      id: 'F0EVIL',
      name: 'x.png',
      mimetype: 'image/png',
      size: 1,
      url_private: `http://localhost:${port}/x.png`,
    };
    await h.fake.signer.sendEvent(h.url, {
      type: 'message',
      subtype: 'file_share',
      user: MAYA.id,
      text: 'look',
      ts: '1700000000.000100',
      channel: dmOf(MAYA),
      channel_type: 'im',
      files: [file],
    });
    await h.settled();
    elsewhere.close();
    expect(asked).toEqual([]);
    const replies = h.fake.messages(dmOf(MAYA)).filter((m) => m.user === h!.fake.identity.botUserId);
    expect(replies.map((m) => m.text)).toEqual([
      expect.stringMatching(
        /could not be downloaded: the file is not on Slack \(<?http:\/\/localhost:\d+>?\), so the bot token was not sent there$/,
      ),
      'echo: look',
    ]);
  });

  it('send_file: uploads a workspace file by the external upload flow, approved; the bytes arrive equal', async () => {
    h = await startSlackHarness({ modelBaseUrl: llm.baseURL });
    const bytes = randomBytes(120_000);
    await writeFile(join(h.workspace, 'minutes.pdf'), bytes);
    llm.script({ toolCalls: [{ name: 'send_file', args: { path: 'minutes.pdf', caption: 'المحضر 📎' } }] });
    await h.fake.signer.sendMessage(h.url, { channel: dmOf(MAYA), user: MAYA.id, text: 'send the minutes' });
    await h.settled();
    expect(h.fake.uploads).toEqual([]);
    const card = h.fake.messages(dmOf(MAYA)).find((m) => m.blocks?.some((b) => b.type === 'actions'))!;
    expect(await clickDecision(h, MAYA, `slack:${dmOf(MAYA)}`, card.ts, 'once')).toBe(200);
    await h.settled();
    expect(h.fake.uploads.map((u) => [u.name, u.channel, u.comment, u.bytes.equals(bytes)])).toEqual([
      ['minutes.pdf', dmOf(MAYA), 'المحضر 📎', true],
    ]);
  });

  it('send_file stopped after Slack took the upload, before it was recorded: not uploaded twice', async () => {
    const database = await freshDatabase('pglite');
    const fake = await startFakeSlack();
    try {
      h = await startSlackHarness({ modelBaseUrl: llm.baseURL, database, fake });
      await writeFile(join(h.workspace, 'once.bin'), randomBytes(5_000));
      llm.script({ toolCalls: [{ name: 'send_file', args: { path: 'once.bin' } }] });
      await fake.signer.sendMessage(h.url, { channel: dmOf(MAYA), user: MAYA.id, text: 'send it once' });
      await h.settled();
      const card = fake.messages(dmOf(MAYA)).find((m) => m.blocks?.some((b) => b.type === 'actions'))!;
      // Slack shares the file, and its answer never reaches this run: it is stopped first.
      const held = fake.holdAnswer('files.completeUploadExternal');
      await clickDecision(h, MAYA, `slack:${dmOf(MAYA)}`, card.ts, 'once');
      await held.held;
      await h.close();
      h = undefined;
      held.release();
      h = await startSlackHarness({ modelBaseUrl: llm.baseURL, database, fake });
      await h.settled();
      expect(fake.uploads).toHaveLength(1);
      expect(fake.calls.count('files.getUploadURLExternal')).toBe(1);
    } finally {
      await h?.close();
      h = undefined;
      await fake.close();
      await database.dispose();
    }
  });
});

// Attachments sent to Kazma on Discord: each is downloaded from its (signed) CDN URL, an image goes to the
// model as a data: URL and a document as fenced text, in the same user message as the words; no URL of
// Discord's reaches the model.
import { createHash, randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../fakes/llm-server.ts';
import { contentText } from '../../fakes/llm-wire.ts';
import { textPdf } from '../../helpers/pdf.ts';
import { DM_OF, GENERAL, MAYA, startHarness, type Harness } from './harness.ts';

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
  llm.transcriptions.length = 0;
});

type Part = { type: string; text?: string; image_url?: { url: string } };
const lastUser = () => [...(llm.requests.at(-1)?.messages ?? [])].reverse().find((m) => m.role === 'user');

describe('attachments on Discord', () => {
  it('sends an attached image to the model as a data: URL, with the words', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL });
    const gif = Buffer.concat([Buffer.from('GIF89a', 'latin1'), randomBytes(2_000)]);
    h.say({
      channelId: GENERAL,
      author: MAYA,
      content: 'what is this?',
      mentionsBot: true,
      files: [{ name: 'cat.gif', type: 'image/gif', data: gif }],
    });
    await h.settled();
    expect(llm.requests).toHaveLength(1);
    const parts = lastUser()?.content as Part[];
    expect(parts[0]).toEqual({ type: 'text', text: 'what is this?' });
    expect(parts[1]?.image_url?.url).toBe(`data:image/gif;base64,${gif.toString('base64')}`);
    expect(h.fake.downloads).toEqual([{ path: expect.stringContaining('/cat.gif'), status: 200 }]);
    const wire = JSON.stringify(llm.requests);
    expect(wire).not.toContain('/attachments/');
    expect(wire).not.toContain(h.fake.token);
  });

  it('sends an attached PDF’s text fenced, with its name, when it comes alone', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL });
    const pdf = Buffer.from(textPdf(['Discord design notes']));
    h.say({
      channelId: DM_OF[MAYA.id]!,
      author: MAYA,
      content: '',
      guild: false,
      files: [{ name: 'notes.pdf', type: 'application/pdf', data: pdf }],
    });
    await h.settled();
    const text = contentText(lastUser()?.content);
    expect(text).toContain('📎 notes.pdf, 1 page\n«outside:');
    expect(text).toContain('Discord design notes');
  });

  it('transcribes a voice message once and sends its words to the model', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL });
    const ogg = Buffer.concat([Buffer.from('OggS'), randomBytes(5_000)]);
    llm.hearNext('ship it on Thursday');
    h.say({
      channelId: DM_OF[MAYA.id]!,
      author: MAYA,
      content: '',
      guild: false,
      files: [{ name: 'voice-message.ogg', type: 'audio/ogg', data: ogg }],
    });
    await h.settled();
    expect(llm.transcriptions.map((t) => [t.fileName, t.fileType, t.bytes.equals(ogg)])).toEqual([
      ['voice-message.ogg', 'audio/ogg', true],
    ]);
    expect(contentText(lastUser()?.content)).toContain('ship it on Thursday');
    expect(JSON.stringify(llm.requests)).not.toContain('/attachments/');
  });

  it('send_file: uploads a workspace file, approved, with its caption; the bytes arrive equal', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL });
    const bytes = randomBytes(300_000);
    await writeFile(join(h.workspace, 'export.csv'), bytes);
    llm.script({ toolCalls: [{ name: 'send_file', args: { path: 'export.csv', caption: 'the export 📎' } }] });
    const dm = DM_OF[MAYA.id]!;
    h.say({ channelId: dm, author: MAYA, content: 'send the export', guild: false });
    await h.settled();
    const card = h.fake.messages(dm).find((m) => m.components.length > 0)!;
    const once = card.components[0].components.find((b: { custom_id: string }) => b.custom_id.endsWith(':once'));
    h.click({ channelId: dm, messageId: card.id, user: MAYA, customId: once.custom_id });
    await h.settled();
    const sent = h.fake.messages(dm).filter((m) => m.files.length > 0);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.content).toBe('the export 📎');
    expect(sent[0]!.attachments[0]).toMatchObject({ filename: 'export.csv', size: bytes.length });
    expect(sent[0]!.files[0]!.data.equals(bytes)).toBe(true);
  });

  it('an upload sent again under its delivery key (a retry after Discord took it) shows once', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL });
    const bytes = randomBytes(2_000);
    const path = join(h.workspace, 'kept.bin');
    await writeFile(path, bytes);
    const file = {
      name: 'kept.bin',
      path,
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    };
    const chat = `discord:${GENERAL}` as const;
    const progress = { key: 'reply_file_1', delivered: 0, partSent: async () => {} };
    const first = await h.platform.surface.send(chat, { text: 'once', file }, progress);
    const again = await h.platform.surface.send(chat, { text: 'once', file }, { ...progress, again: true });
    expect(again.id).toBe(first.id);
    expect(h.fake.messages(GENERAL).filter((m) => m.files.length > 0)).toHaveLength(1);
  });
});

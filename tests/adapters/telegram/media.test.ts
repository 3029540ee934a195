// Photos and files sent to the bot on Telegram: read with the Bot API (getFile, then the file download),
// handed to the model in the same user message as the caption — an image as a `data:` URL, a document
// as fenced text — and never with the bot's token anywhere in what the model is sent.
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { inbox } from '../../../src/core/db/index.ts';
import { startFakeLlm, type ChatRequestBody, type FakeLlm } from '../../fakes/llm-server.ts';
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

/** Bytes a JPEG starts with, then `size` random ones: what a client's compressed photo looks like. */
const jpeg = (size: number) =>
  new Uint8Array(Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(size)]));
const texts = () => h!.fake.messages(MAYA.id).map((m) => m.text);

type Part = { type: string; text?: string; image_url?: { url: string } };
/** The content parts of the last user message of the last model request. */
function lastUserParts(): Part[] {
  const body = llm.requests.at(-1) as ChatRequestBody;
  const user = [...(body.messages ?? [])].reverse().find((m) => m.role === 'user');
  const content = user?.content;
  return typeof content === 'string' ? [{ type: 'text', text: content }] : (content as Part[]);
}

/** No request the model was sent carries the bot's token or a link to the Bot API's files. */
function expectNoToken(): void {
  for (const body of llm.requests) {
    const wire = JSON.stringify(body);
    expect(wire).not.toContain(h!.fake.token);
    expect(wire).not.toContain('/file/bot');
  }
}

describe('photos', () => {
  it('sends the largest size to the model as a data: URL, with the caption, in one user message', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL });
    const small = jpeg(300);
    const large = jpeg(40_000);
    h.photo({ chatId: MAYA.id, from: MAYA, sizes: [small, jpeg(5_000), large], caption: 'what is on this?' });
    await h.settled();
    expect(llm.requests).toHaveLength(1);
    const parts = lastUserParts();
    expect(parts.filter((p) => p.type === 'text').map((p) => p.text)).toEqual(['what is on this?']);
    const images = parts.filter((p) => p.type === 'image_url');
    expect(images).toHaveLength(1);
    const url = images[0]!.image_url!.url;
    expect(url.startsWith('data:image/jpeg;base64,')).toBe(true);
    expect(Buffer.from(url.slice('data:image/jpeg;base64,'.length), 'base64').equals(Buffer.from(large))).toBe(true);
    expect(h.fake.calls.of('getFile')).toHaveLength(1);
    expectNoToken();
    expect(texts()).toEqual(['echo: what is on this?']);
  });

  it('records the photo in the inbox by reference, never its bytes', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL });
    h.photo({ chatId: MAYA.id, from: MAYA, sizes: [jpeg(100), jpeg(60_000)], caption: 'kept small' });
    await h.settled();
    const [row] = await h.database.db.select().from(inbox);
    const event = row!.event as { attachments: Array<Record<string, unknown>> };
    expect(event.attachments).toEqual([
      { kind: 'image', ref: expect.stringMatching(/^AgAC/), mime: 'image/jpeg', size: 60_004 },
    ]);
    expect(JSON.stringify(event).length).toBeLessThan(1_000);
  });

  it('reads a photo with no caption', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL });
    h.photo({ chatId: MAYA.id, from: MAYA, sizes: [jpeg(2_000)] });
    await h.settled();
    expect(llm.requests).toHaveLength(1);
    expect(lastUserParts().some((p) => p.type === 'image_url')).toBe(true);
    expectNoToken();
  });
});

describe('what is not read', () => {
  it('with model.vision off, tells the person and sends the caption alone', async () => {
    h = await startHarness({
      modelBaseUrl: llm.baseURL,
      config: { model: { name: 'fake-model', base_url: llm.baseURL, vision: false } },
    });
    h.photo({ chatId: MAYA.id, from: MAYA, sizes: [jpeg(2_000)], caption: 'describe it' });
    await h.settled();
    expect(texts()).toEqual([expect.stringMatching(/cannot see images \(model\.vision is off\)/), 'echo: describe it']);
    expect(lastUserParts()).toEqual([{ type: 'text', text: 'describe it' }]);
    expect(h.fake.downloads).toEqual([]);
    // A photo alone leaves nothing for the model: it is not asked.
    h.photo({ chatId: MAYA.id, from: MAYA, sizes: [jpeg(2_000)] });
    await h.settled();
    expect(llm.requests).toHaveLength(1);
    expect(texts()).toHaveLength(3);
  });

  it('refuses a file over media.max_bytes from its declared size, before any download', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL, config: { media: { max_bytes: '64KB' } } });
    h.document({ chatId: MAYA.id, from: MAYA, bytes: jpeg(100_000), fileName: 'big.jpg', mimeType: 'image/jpeg' });
    await h.settled();
    expect(texts()).toEqual([
      '📎 "big.jpg" is 97.7 KB, over the 64 KB limit for files (media.max_bytes), so it was not read.',
    ]);
    expect(h.fake.calls.of('getFile')).toEqual([]);
    expect(h.fake.downloads).toEqual([]);
    expect(llm.requests).toEqual([]);
  });

  it('cuts off a download that turns out larger than declared', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL, config: { media: { max_bytes: '64KB' } } });
    const bytes = new Uint8Array(30_000_000);
    bytes.set([0xff, 0xd8, 0xff, 0xe0]);
    h.document({ chatId: MAYA.id, from: MAYA, bytes, fileName: 'liar.jpg', mimeType: 'image/jpeg', declaredSize: 900 });
    await h.settled();
    expect(texts()).toEqual([
      expect.stringMatching(
        /^📎 "liar\.jpg" turned out to be over the 64 KB limit .*\(media\.max_bytes\) while it downloaded/,
      ),
    ]);
    expect(h.fake.downloads).toHaveLength(1);
    expect(h.fake.downloads[0]).toMatchObject({ cancelled: true });
    expect(h.fake.downloads[0]!.sent).toBeLessThan(bytes.length / 2);
    expect(llm.requests).toEqual([]);
  });

  it('refuses a file that claims to be an image and is not one, and goes on serving', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL });
    const bytes = new TextEncoder().encode('#!/bin/sh\necho not a picture\n');
    h.document({ chatId: MAYA.id, from: MAYA, bytes, fileName: 'cat.png', mimeType: 'image/png', caption: 'see?' });
    await h.settled();
    expect(texts()).toEqual(['📎 "cat.png" is not an image Kazma can read (JPEG, PNG, GIF or WebP).', 'echo: see?']);
    expect(lastUserParts()).toEqual([{ type: 'text', text: 'see?' }]);
    h.say({ chatId: MAYA.id, from: MAYA, text: 'still there?' });
    await h.settled();
    expect(texts().at(-1)).toBe('echo: still there?');
    expectNoToken();
  });
});

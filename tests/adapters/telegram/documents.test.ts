// Documents sent to the bot on Telegram: a PDF (read with unpdf), a Word document (DOCX) or a text file
// (plain, Markdown, CSV, JSON) is read in a worker thread within limits, and its text reaches the model
// fenced as outside text, with the file's name, in the same user message as the caption; a hostile file
// costs one clear reply.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../fakes/llm-server.ts';
import { contentText } from '../../fakes/llm-wire.ts';
import { bombDocx, docx } from '../../helpers/docx.ts';
import { bombPdf, textPdf } from '../../helpers/pdf.ts';
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

const texts = () => h!.fake.messages(MAYA.id).map((m) => m.text);
/** The text of the last user message of the last model request. */
function lastUserText(): string {
  const user = [...(llm.requests.at(-1)?.messages ?? [])].reverse().find((m) => m.role === 'user');
  return contentText(user?.content);
}
const utf8 = (text: string) => new TextEncoder().encode(text);

describe('documents', () => {
  it('sends a PDF’s text to the model fenced, with its name and the caption', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL });
    const bytes = textPdf(['Quarterly report', 'Revenue grew by 12 percent']);
    h.document({
      chatId: MAYA.id,
      from: MAYA,
      bytes,
      fileName: 'report.pdf',
      mimeType: 'application/pdf',
      caption: 'sum up',
    });
    await h.settled();
    expect(llm.requests).toHaveLength(1);
    const text = lastUserText();
    expect(text.startsWith('sum up📎 report.pdf, 2 pages\n«outside:')).toBe(true);
    expect(text).toContain('Text from the file "report.pdf" follows');
    expect(text).toContain('Quarterly report');
    expect(text).toContain('Revenue grew by 12 percent');
    expect(text).toMatch(/«end:[0-9a-f]+»$/);
    expect(JSON.stringify(llm.requests)).not.toContain(h.fake.token);
  });

  it('reads CSV, Markdown and JSON as text, and cuts a long one to the budget with a note', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL, config: { media: { max_document_chars: 1_000 } } });
    const csv = `name,score\n${Array.from({ length: 500 }, (_, i) => `row${i},${i}`).join('\n')}\n`;
    h.document({ chatId: MAYA.id, from: MAYA, bytes: utf8(csv), fileName: 'scores.csv', mimeType: 'text/csv' });
    await h.settled();
    const cut = lastUserText();
    expect(cut).toContain('📎 scores.csv\n«outside:');
    expect(cut).toContain('name,score\nrow0,0');
    expect(cut).not.toContain('row499');
    expect(cut).toContain(`[Only the first 1000 of its ${csv.length} characters are shown`);
    for (const [fileName, mimeType, body] of [
      ['notes.md', 'text/markdown', '# Plan\n- ship media'],
      ['data.json', 'application/json', '{"ok": true}'],
    ] as const) {
      h.document({ chatId: MAYA.id, from: MAYA, bytes: utf8(body), fileName, mimeType });
      await h.settled();
      expect(lastUserText()).toContain(`📎 ${fileName}\n«outside:`);
      expect(lastUserText()).toContain(body);
    }
    expect(llm.requests).toHaveLength(3);
  });

  it('sends a Word document’s text to the model fenced; a zip-bomb DOCX gets one clear reply', {
    timeout: 60_000,
  }, async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL });
    const type = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
    h.document({
      chatId: MAYA.id,
      from: MAYA,
      bytes: docx(['Minutes', 'Decided: ship it']),
      fileName: 'm.docx',
      mimeType: type,
    });
    await h.settled();
    const text = lastUserText();
    expect(text.startsWith('📎 m.docx\n«outside:')).toBe(true);
    expect(text).toContain('Minutes\nDecided: ship it');
    h.document({ chatId: MAYA.id, from: MAYA, bytes: bombDocx(), fileName: 'bomb.docx', mimeType: type });
    await h.settled();
    expect(texts().at(-1)).toBe('⚠️ "bomb.docx" could not be read: it unpacks to over 32 MB of text.');
    expect(llm.requests).toHaveLength(1);
    h.say({ chatId: MAYA.id, from: MAYA, text: 'alive?' });
    await h.settled();
    expect(texts().at(-1)).toBe('echo: alive?');
  });

  it('refuses a type it does not read before downloading it', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL });
    h.document({ chatId: MAYA.id, from: MAYA, bytes: utf8('PK...'), fileName: 'a.zip', mimeType: 'application/zip' });
    await h.settled();
    expect(texts()).toEqual([
      '📎 Kazma cannot read "a.zip" (application/zip): it reads images, PDF, Word (DOCX), plain text, Markdown, CSV and JSON.',
    ]);
    expect(h.fake.downloads).toEqual([]);
    expect(llm.requests).toEqual([]);
  });

  it('answers a PDF bomb with one clear reply, its memory bounded, and keeps serving', {
    timeout: 60_000,
  }, async () => {
    h = await startHarness({
      modelBaseUrl: llm.baseURL,
      config: { media: { parse_timeout: '10s', parse_memory: '128MB' } },
    });
    // 900 KB that inflates to 300 MB of text operators.
    const bomb = bombPdf(300);
    const rss = process.memoryUsage.rss();
    let peak = rss;
    let ticks = 0;
    const watch = setInterval(() => {
      ticks++;
      peak = Math.max(peak, process.memoryUsage.rss());
    }, 20);
    const started = performance.now();
    h.document({ chatId: MAYA.id, from: MAYA, bytes: bomb, fileName: 'bomb.pdf', mimeType: 'application/pdf' });
    h.say({ chatId: -1005000, from: MAYA, text: '@kazma_test_bot meanwhile', chatType: 'group' });
    await h.settled();
    clearInterval(watch);
    expect(texts()).toEqual([
      expect.stringMatching(/^⚠️ "bomb\.pdf" could not be read: it (needed over 128 MB|took over 10 s)\.$/),
    ]);
    expect(llm.requests.map((r) => contentText(r.messages?.at(-1)?.content))).toEqual(['meanwhile']);
    // The event loop kept turning while the worker chewed (a 20 ms timer, most of its ticks).
    expect(ticks).toBeGreaterThan(((performance.now() - started) / 20) * 0.5);
    expect(peak - rss).toBeLessThan(600 * 1024 ** 2);
    h.say({ chatId: MAYA.id, from: MAYA, text: 'alive?' });
    await h.settled();
    expect(texts().at(-1)).toBe('echo: alive?');
  });
});

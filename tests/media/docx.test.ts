// Word documents (DOCX) read in the reading worker: the text of word/document.xml, a paragraph a line,
// fenced with the file's name. Hostile archives — a zip bomb (a text entry unpacking to 512 MB from half
// a megabyte), a file cut short, an archive with no document in it, a file that only claims to be one —
// each get one clear answer, the process goes on reading, and its memory stays bounded.
import { describe, expect, it } from 'vitest';
import { documentKind, readDocument } from '../../src/core/media/document-reader.ts';
import { MediaRefusal } from '../../src/core/media/download.ts';
import type { Attachment } from '../../src/core/surface/index.ts';
import { bombDocx, docx, documentXml, zip } from '../helpers/docx.ts';

const limits = { maxChars: 10_000, timeoutMs: 15_000, memoryMb: 128 };
const word = (name: string): Attachment => ({
  kind: 'document',
  ref: name,
  name,
  mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
});
const read = (bytes: Uint8Array, name = 'x.docx') => readDocument(bytes, word(name), `"${name}"`, limits);

async function refusal(reading: Promise<unknown>): Promise<string> {
  const error = await reading.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MediaRefusal);
  return (error as Error).message;
}

describe('DOCX', () => {
  it('is a document Kazma reads, by its type or its name', () => {
    expect(documentKind(word('a.docx'), 'a')).toBe('docx');
    expect(documentKind({ kind: 'document', ref: 'r', name: 'Minutes.DOCX' }, 'a')).toBe('docx');
  });

  it('reads its text, a paragraph a line, with tabs, breaks and entities, fenced under its name', async () => {
    const body =
      '<w:p><w:pPr><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr>' +
      '<w:r><w:t>Agenda</w:t></w:r><w:r><w:tab/><w:t xml:space="preserve"> item &amp; &lt;one&gt;</w:t></w:r></w:p>' +
      '<w:p/><w:p><w:r><w:t>line</w:t><w:br/><w:t>مرحبا &#x1F600;</w:t></w:r></w:p>' +
      '<w:tbl><w:tr><w:tc><w:p><w:r><w:t>cell</w:t></w:r></w:p></w:tc></w:tr></w:tbl>';
    const bytes = zip([{ name: 'word/document.xml', data: Buffer.from(documentXml(body)), deflate: true }]);
    const text = await read(bytes, 'minutes.docx');
    expect(text).toMatch(/^📎 minutes\.docx\n/);
    expect(text).toContain('«outside:');
    expect(text).toContain('Agenda\t item & <one>\n\nline\nمرحبا 😀\ncell');
    expect(await read(docx(['stored, not deflated'], { deflate: false }))).toContain('stored, not deflated');
  });

  it('cuts a long document to the budget and says how much was left out', async () => {
    const text = await read(docx(Array.from({ length: 2_000 }, (_, i) => `Paragraph ${i} of a long report.`)));
    expect(text).toMatch(/Only the first 10000 of its \d+ characters are shown/);
  });

  it('answers a zip bomb clearly, with memory bounded, and goes on reading', { timeout: 60_000 }, async () => {
    const bomb = bombDocx();
    expect(bomb.length).toBeLessThan(2 * 1024 ** 2);
    const before = process.memoryUsage.rss();
    let peak = before;
    const watch = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 10);
    try {
      // Refused from the size its directory declares, and — when that lies — while it unpacks.
      for (const file of [bomb, bombDocx(undefined, { declared: 4_096 })])
        expect(await refusal(read(file, 'bomb.docx'))).toBe(
          '⚠️ "bomb.docx" could not be read: it unpacks to over 16 MB of text.',
        );
    } finally {
      clearInterval(watch);
    }
    expect(peak - before).toBeLessThan(150 * 1024 ** 2); // 512 MB unpacked would show
    expect(await read(docx(['still serving']))).toContain('still serving');
  });

  it('answers a file cut short, an archive without a document, and a file that only claims to be one', async () => {
    const whole = docx(['complete']);
    expect(await refusal(read(whole.subarray(0, Math.floor(whole.length / 2)), 'cut.docx'))).toMatch(
      /^⚠️ "cut\.docx" could not be read: it is not a Word document \(DOCX\), or it was cut short\.$/,
    );
    const sheet = zip([{ name: 'xl/workbook.xml', data: Buffer.from('<workbook/>'), deflate: true }]);
    expect(await refusal(read(sheet, 'renamed.docx'))).toMatch(/it has no word\/document\.xml/);
    expect(await refusal(read(Buffer.from('%PDF-1.7 not a zip'), 'fake.docx'))).toMatch(
      /^📎 "fake\.docx" is not a Word document \(DOCX\), whatever its name or type says/,
    );
    const lying = Buffer.from(whole);
    lying.writeUInt32LE(0x7fffffff, lying.length - 22 + 16); // the directory points past the end
    expect(await refusal(read(lying, 'lying.docx'))).toMatch(/damaged or cut short/);
  });
});

// The PDF policy, applied in the reading worker before any text is taken: a PDF that carries JavaScript, a
// launch action or embedded files is refused, saying which; an encrypted one is refused, saying so; links
// to the web or to files are never followed, and the person is told they were left out. Hostile shapes
// (nesting built to exhaust a parser's stack, a file cut short) cost one clear answer; the process goes on.
import { describe, expect, it } from 'vitest';
import { readDocument } from '../../src/core/media/document-reader.ts';
import { MediaRefusal } from '../../src/core/media/download.ts';
import type { Attachment } from '../../src/core/surface/index.ts';
import { hiddenActionPdf, nestedPdf, pdfWith, scriptedPdf, textPdf } from '../helpers/pdf.ts';

const limits = { maxChars: 10_000, timeoutMs: 15_000, memoryMb: 128 };
const pdf = (name: string): Attachment => ({ kind: 'document', ref: name, name, mime: 'application/pdf' });
const read = (bytes: Uint8Array, name = 'x.pdf') => readDocument(bytes, pdf(name), `"${name}"`, limits);

async function refusal(reading: Promise<unknown>): Promise<string> {
  const error = await reading.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MediaRefusal);
  return (error as Error).message;
}

describe('the PDF policy', () => {
  it('refuses a PDF with JavaScript and a launch action, naming both', async () => {
    const message = await refusal(read(scriptedPdf(), 'invoice.pdf'));
    expect(message).toMatch(/^⚠️ "invoice\.pdf" was not read: it holds .*JavaScript.*launch/);
  });

  it('finds JavaScript however its name is spelled (#-escaped) and wherever it is (the names tree)', async () => {
    const named = pdfWith({
      catalog: '/Names << /JavaScript << /Names [(x) << /S /J#61vaScript /JS (this.print\\(\\)) >>] >> >>',
    });
    expect(await refusal(read(named))).toMatch(/JavaScript/);
  });

  it('finds JavaScript kept in a compressed object stream, where the raw bytes do not show it', async () => {
    const hidden = hiddenActionPdf('<< /S /JavaScript /JS (app.launchURL\\("http://evil.example"\\)) >>');
    expect(Buffer.from(hidden).toString('latin1')).not.toContain('JavaScript');
    expect(await refusal(read(hidden, 'hidden.pdf'))).toMatch(/^⚠️ "hidden\.pdf" was not read: it holds JavaScript/);
    // The same file with a harmless action in its place is read: the refusal is the script's.
    expect(await read(hiddenActionPdf('<< /S /Named /N /NextPage >>'))).toContain('Hello from a hostile file');
  });

  it('refuses a PDF with an embedded file', async () => {
    const attached = pdfWith({
      catalog: '/Names << /EmbeddedFiles << /Names [(run.exe) 6 0 R] >> >>',
      objects: [
        '<< /Type /Filespec /F (run.exe) /EF << /F 7 0 R >> >>',
        '<< /Type /EmbeddedFile /Length 2 >>\nstream\nMZ\nendstream',
      ],
    });
    expect(await refusal(read(attached))).toMatch(/embedded file/);
  });

  it('answers an encrypted PDF clearly', async () => {
    const bytes = Buffer.from(textPdf(['secret']));
    const locked = Buffer.from(
      bytes
        .toString('latin1')
        .replace('/Root 1 0 R', '/Root 1 0 R /Encrypt << /Filter /Standard /V 2 /R 3 /O (x) /U (y) /P -4 >>'),
      'latin1',
    );
    expect(await refusal(read(new Uint8Array(locked), 'locked.pdf'))).toMatch(
      /^🔒 "locked\.pdf" is encrypted .*password/,
    );
  });

  it('reads the text of a PDF with web and file links, never following them, and says they were left out', async () => {
    const linked = pdfWith({
      page:
        '/Annots [<< /Type /Annot /Subtype /Link /Rect [0 0 9 9] /A << /S /URI /URI (http://169.254.169.254/) >> >> ' +
        '<< /Type /Annot /Subtype /Link /Rect [9 9 19 19] /A << /S /GoToR /F (file:///etc/passwd) /D [0 /Fit] >> >>]',
    });
    const text = await read(linked, 'links.pdf');
    expect(text).toContain('Hello from a hostile file');
    expect(text).toContain('2 links to the web or to files were left out');
    expect(text).not.toContain('169.254.169.254');
  });

  it('answers a PDF nested to exhaust a parser, and a file cut short, clearly; the process goes on', async () => {
    const rss = process.memoryUsage.rss();
    expect(await refusal(read(nestedPdf(200_000), 'deep.pdf'))).toBe(
      '⚠️ "deep.pdf" could not be read: it is nested too deeply to read.',
    );
    const whole = textPdf(['Cut short']);
    for (const share of [0.2, 0.5, 0.8]) {
      const cut = whole.subarray(0, Math.floor(whole.length * share));
      // pdf.js may rebuild a file cut after its page (its text read), or not: either answer is whole.
      const answer = await read(cut, 'cut.pdf').catch((error: unknown) => (error as Error).message);
      expect(answer).toMatch(/^(⚠️ "cut\.pdf" could not be read: [^\n]+[^.]\.|📎 cut\.pdf[\s\S]*«end:\w+»)$/);
    }
    expect(process.memoryUsage.rss() - rss).toBeLessThan(400 * 1024 ** 2);
    expect(await read(textPdf(['still serving']))).toContain('still serving');
  });
});

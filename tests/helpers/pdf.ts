// Small PDFs built by hand for tests: a page of text, or a file shaped to hurt a parser. Offsets in the
// cross-reference table are exact, so pdf.js reads them without repairing anything.
import { deflateSync } from 'node:zlib';

/** A PDF from its objects (numbered from 1; object 1 is the catalog), with an exact xref table. */
export function pdfOf(objects: string[]): Uint8Array {
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  out += offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(out, 'latin1'));
}

const stream = (content: string | Buffer, extra = '') => {
  const bytes = Buffer.isBuffer(content) ? content : Buffer.from(content, 'latin1');
  return `<< /Length ${bytes.length}${extra} >>\nstream\n${bytes.toString('latin1')}\nendstream`;
};

/** One page per entry of `pages`, each line of it shown in Helvetica. */
export function textPdf(pages: string[]): Uint8Array {
  const font = 3 + pages.length * 2;
  const objects = ['<< /Type /Catalog /Pages 2 0 R >>', ''];
  const kids: string[] = [];
  pages.forEach((text, i) => {
    const page = 3 + i * 2;
    kids.push(`${page} 0 R`);
    const lines = text.split('\n').map((line, n) => `BT /F1 12 Tf 72 ${720 - n * 16} Td (${line}) Tj ET`);
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${page + 1} 0 R ` +
        `/Resources << /Font << /F1 ${font} 0 R >> >> >>`,
      stream(lines.join('\n')),
    );
  });
  objects[1] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${pages.length} >>`;
  objects.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  return pdfOf(objects);
}

/** A page whose content stream inflates from a small file to `megabytes` MB of text operators (a PDF bomb). */
export function bombPdf(megabytes: number): Uint8Array {
  const unit = Buffer.from('BT /F1 12 Tf 72 720 Td (boom boom boom boom) Tj ET\n', 'latin1');
  const content = deflateSync(Buffer.alloc(megabytes * 1024 * 1024, unit), { level: 9 });
  return pdfOf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    stream(content, ' /Filter /FlateDecode'),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ]);
}

const PAGE =
  '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >>';
const SHOWN = stream('BT /F1 12 Tf 72 720 Td (Hello from a hostile file) Tj ET');
const FONT = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';

/** A one-page PDF whose catalog has `catalog` more (an /OpenAction, /Names) and whose page has `page` more. */
export function pdfWith(parts: { catalog?: string; page?: string; objects?: string[] }): Uint8Array {
  return pdfOf([
    `<< /Type /Catalog /Pages 2 0 R ${parts.catalog ?? ''} >>`,
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `${PAGE} ${parts.page ?? ''} >>`,
    SHOWN,
    FONT,
    ...(parts.objects ?? []),
  ]);
}

/** A PDF that runs JavaScript when opened, and whose link launches a program. */
export function scriptedPdf(): Uint8Array {
  return pdfWith({
    catalog: '/OpenAction << /S /JavaScript /JS (app.alert\\(1\\)) >>',
    page: '/Annots [<< /Type /Annot /Subtype /Link /Rect [0 0 100 100] /A << /S /Launch /F (calc.exe) >> >>]',
  });
}

/** A PDF whose page's annotations are `depth` arrays deep: a parser that recurses runs out of stack. */
export function nestedPdf(depth: number): Uint8Array {
  return pdfWith({ objects: [`${'['.repeat(depth)}${']'.repeat(depth)}`], page: '/Annots 6 0 R' });
}

/**
 * A PDF 1.5 whose catalog's /OpenAction is object 7, `hidden`, kept in a compressed object stream (an
 * /ObjStm found through an xref stream): nothing of it shows in the file's raw bytes.
 */
export function hiddenActionPdf(hidden: string): Uint8Array {
  const plain = [
    '<< /Type /Catalog /Pages 2 0 R /OpenAction 7 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `${PAGE} >>`,
    SHOWN,
    FONT,
  ];
  const header = '7 0 ';
  const packed = deflateSync(Buffer.from(header + hidden, 'latin1'));
  plain.push(stream(packed, ` /Type /ObjStm /N 1 /First ${header.length} /Filter /FlateDecode`));
  let out = '%PDF-1.5\n';
  const offsets: number[] = [];
  plain.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xrefAt = Buffer.byteLength(out, 'latin1');
  const entry = (type: number, field: number, index: number) => {
    const b = Buffer.alloc(7);
    b.writeUInt8(type, 0);
    b.writeUInt32BE(field, 1);
    b.writeUInt16BE(index, 5);
    return b;
  };
  const table = Buffer.concat([
    entry(0, 0, 65535),
    ...offsets.map((o) => entry(1, o, 0)),
    entry(2, 6, 0), // object 7: the first in object stream 6
    entry(1, xrefAt, 0),
  ]);
  out += `8 0 obj\n${stream(table, ' /Type /XRef /Size 9 /W [1 4 2] /Root 1 0 R')}\nendobj\n`;
  out += `startxref\n${xrefAt}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(out, 'latin1'));
}

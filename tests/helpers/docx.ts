// Word documents (DOCX) built in memory for tests: a ZIP archive holding `word/document.xml` (and the
// content types a real one has), each entry stored or deflated, with real CRCs. Hostile shapes: an entry
// that inflates far past its size (a zip bomb), entries named to look like something else.
import { crc32, deflateRawSync } from 'node:zlib';

/** One entry: its bytes as they unpack, and whether they are deflated (method 8) or stored (0). */
export interface ZipEntry {
  name: string;
  data: Buffer;
  deflate?: boolean;
  /** Already-deflated bytes to store as the entry's data (for a bomb built without holding it unpacked). */
  raw?: { bytes: Buffer; size: number; crc: number };
}

/** A ZIP archive of `entries`: local headers and data, then the central directory and its end record. */
export function zip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const packed = entry.raw?.bytes ?? (entry.deflate ? deflateRawSync(entry.data) : entry.data);
    const method = entry.raw || entry.deflate ? 8 : 0;
    const size = entry.raw?.size ?? entry.data.length;
    const crc = entry.raw?.crc ?? crc32(entry.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // names in UTF-8
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, packed);
    centrals.push(central, name);
    offset += local.length + name.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const TYPES =
  '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
  '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.' +
  'wordprocessingml.document.main+xml"/></Types>';

/** `body` (WordprocessingML inside <w:body>) as document.xml. */
export const documentXml = (body: string) =>
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
  '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">' +
  `<w:body>${body}</w:body></w:document>`;

/** A DOCX whose paragraphs are `paragraphs` (each one run of text). */
export function docx(paragraphs: string[], options: { deflate?: boolean } = {}): Buffer {
  const escapeXml = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const body = paragraphs.map((p) => `<w:p><w:r><w:t xml:space="preserve">${escapeXml(p)}</w:t></w:r></w:p>`).join('');
  return zip([
    { name: '[Content_Types].xml', data: Buffer.from(TYPES), deflate: true },
    { name: 'word/document.xml', data: Buffer.from(documentXml(body)), deflate: options.deflate ?? true },
  ]);
}

/**
 * A zip-bomb DOCX: document.xml inflates to `size` bytes (default 512 MB) of one repeated run from a file of
 * a few hundred KB, built in pieces so the test never holds it unpacked. `declared`: the size its directory
 * claims instead (a bomb that lies about it).
 */
export function bombDocx(size = 512 * 1024 ** 2, options: { declared?: number } = {}): Buffer {
  const head = Buffer.from(documentXml('<w:p><w:r><w:t>'));
  const piece = Buffer.alloc(1024 ** 2, 'A');
  const pieces = Math.floor((size - head.length) / piece.length);
  // One deflate stream over the pieces: each piece flushed on its own, the whole made of a few KB apiece.
  const parts: Buffer[] = [];
  let crc = crc32(head);
  parts.push(deflateRawSync(head, { finishFlush: 2 /* Z_SYNC_FLUSH */ }));
  const packedPiece = deflateRawSync(piece, { finishFlush: 2, level: 9 });
  for (let i = 0; i < pieces; i++) {
    parts.push(packedPiece);
    crc = crc32(piece, crc);
  }
  parts.push(deflateRawSync(Buffer.alloc(0))); // the final block
  const unpacked = head.length + pieces * piece.length;
  return zip([
    { name: '[Content_Types].xml', data: Buffer.from(TYPES), deflate: true },
    {
      name: 'word/document.xml',
      data: Buffer.alloc(0),
      raw: { bytes: Buffer.concat(parts), size: options.declared ?? unpacked, crc },
    },
  ]);
}

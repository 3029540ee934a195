// A Word document's text (DOCX), read in the reading worker (document-worker.mjs): a DOCX is a ZIP archive,
// and its text is in one entry, `word/document.xml`. Only that entry is read — from the archive's central
// directory, with node's zlib — and it is inflated with `maxOutputLength`, so an entry built to unpack to
// gigabytes (a zip bomb) stops at the cap instead of filling memory. Its runs of text (<w:t>), tabs and
// breaks become lines, a paragraph a line. Nothing else in the archive (macros, embedded objects, links)
// is opened.
// Why not a ZIP library: the ones at hand inflate an entry without a cap (jszip, under mammoth) or into a buffer
// of the size the directory declares, silently cutting what overflows it (fflate's unzipSync) — a lying
// declaration then goes unnoticed; reading the one entry here keeps "refused, with the reason" for both.
// Plain JavaScript, so the same file runs from the source and from dist/.
import { inflateRawSync } from 'node:zlib';

const END_OF_DIRECTORY = 0x06054b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_ENTRY = 0x04034b50;
/** More entries than any document has: a directory claiming more is not read. */
const MAX_ENTRIES = 10_000;

/** Why a DOCX was not read: its message is a sentence's end for the person. */
export class DocxRefusal extends Error {}

/**
 * The text of the DOCX in `bytes`; `maxUnpacked` caps the bytes `word/document.xml` may unpack to.
 * @param {Uint8Array} bytes
 * @param {number} maxUnpacked
 * @returns {string}
 */
export function docxText(bytes, maxUnpacked) {
  const zip = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entry = findEntry(zip, 'word/document.xml');
  if (entry.flags & 1) throw new DocxRefusal('it is encrypted (it needs a password to open)');
  if (entry.size === 0xffffffff || entry.packed === 0xffffffff) throw new DocxRefusal('it is too large to read');
  if (entry.size > maxUnpacked) throw new DocxRefusal(`it unpacks to over ${mb(maxUnpacked)} of text`);
  if (zip.length < entry.local + 30 || zip.readUInt32LE(entry.local) !== LOCAL_ENTRY) throw damaged();
  const start = entry.local + 30 + zip.readUInt16LE(entry.local + 26) + zip.readUInt16LE(entry.local + 28);
  if (start + entry.packed > zip.length) throw damaged();
  const packed = zip.subarray(start, start + entry.packed);
  let xml;
  if (entry.method === 0) xml = packed;
  else if (entry.method === 8) {
    try {
      // The size the directory declares may lie: the cap, not the declaration, bounds what is unpacked.
      xml = inflateRawSync(packed, { maxOutputLength: maxUnpacked });
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error).code === 'ERR_BUFFER_TOO_LARGE')
        throw new DocxRefusal(`it unpacks to over ${mb(maxUnpacked)} of text`);
      throw damaged();
    }
  } else throw new DocxRefusal('it is packed in a way Kazma does not read');
  return paragraphs(xml.toString('utf8'));
}

/**
 * The central directory's record of `name`: where its local header is, how it is packed, its sizes.
 * @param {Buffer} zip
 * @param {string} name
 */
function findEntry(zip, name) {
  // The end record is the last 22 bytes, unless the archive has a comment (at most 65,535 bytes) after it.
  let end = -1;
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 22 - 0xffff); at--) {
    if (zip.readUInt32LE(at) === END_OF_DIRECTORY) {
      end = at;
      break;
    }
  }
  if (end < 0) throw new DocxRefusal('it is not a Word document (DOCX), or it was cut short');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  if (count > MAX_ENTRIES) throw new DocxRefusal(`it holds over ${MAX_ENTRIES} parts`);
  for (let i = 0; i < count; i++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== DIRECTORY_ENTRY) throw damaged();
    const nameLength = zip.readUInt16LE(at + 28);
    const skip = 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    if (zip.toString('utf8', at + 46, at + 46 + nameLength) === name)
      return {
        flags: zip.readUInt16LE(at + 8),
        method: zip.readUInt16LE(at + 10),
        packed: zip.readUInt32LE(at + 20),
        size: zip.readUInt32LE(at + 24),
        local: zip.readUInt32LE(at + 42),
      };
    at += skip;
  }
  throw new DocxRefusal('it is not a Word document (it has no word/document.xml)');
}

/** WordprocessingML's text: runs (<w:t>) in order, tabs and breaks, a line per paragraph. */
const TOKENS = /<w:t(?:\s[^>]*)?>([^<]*)<\/w:t>|<w:tab\/>|<w:(?:br|cr)(?:\s[^>]*)?\/>|<\/w:p>|<w:p(?:\s[^>]*)?\/>/g;

/** @param {string} xml */
function paragraphs(xml) {
  let text = '';
  for (const [token, run] of xml.matchAll(TOKENS)) {
    if (run !== undefined) text += decodeEntities(run);
    else if (token === '<w:tab/>') text += '\t';
    else text += '\n';
  }
  return text.replace(/\n+$/, '');
}

const ENTITIES = /** @type {Record<string, string>} */ ({ lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" });

/** @param {string} text */
function decodeEntities(text) {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, ref) => {
    if (ref[0] !== '#') return ENTITIES[ref] ?? whole;
    const code = ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

const damaged = () => new DocxRefusal('it is damaged or cut short');

/** @param {number} bytes */
const mb = (bytes) => `${Math.round(bytes / 1024 ** 2)} MB`;

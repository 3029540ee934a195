// A document's text, worked out in a worker thread (document-reader.ts): a PDF through unpdf (pdf.js for
// servers), after the PDF policy (pdf-policy.mjs) found nothing it refuses; a Word document's text entry
// unpacked within a cap (docx-text.mjs); anything else decoded as UTF-8.
// A file someone sends can be built to make a parser slow or hungry (a PDF of nested objects, huge
// streams), so it is never parsed on the main thread, where it would stop every chat; the worker has a
// memory limit and is ended at its deadline. Only `maxChars` characters come back, with the whole length,
// so a huge file costs the main thread nothing.
// Plain JavaScript, so the same file runs from the source and from dist/.
import { parentPort, workerData } from 'node:worker_threads';
import { getDocumentProxy } from 'unpdf';
import { docxText } from './docx-text.mjs';
import { scanBytes, scanDocument, scanPage } from './pdf-policy.mjs';

/**
 * @param {{ bytes: Uint8Array, kind: 'pdf' | 'docx' | 'text', maxChars: number, maxUnpacked: number }} job
 * @returns {Promise<object>} `{ ok: true, text, chars, pages?, links? }` or `{ ok: false, refused | encrypted }`
 */
async function read({ bytes, kind, maxChars, maxUnpacked }) {
  if (kind !== 'pdf') {
    const text = kind === 'docx' ? docxText(bytes, maxUnpacked) : new TextDecoder('utf-8').decode(bytes);
    return { ok: true, text: text.slice(0, maxChars), chars: text.length };
  }
  const raw = scanBytes(bytes);
  if (raw.encrypted) return { ok: false, encrypted: true };
  if (raw.found.size > 0) return { ok: false, refused: [...raw.found] };
  // No eval (a PDF's fonts may carry code pdf.js would compile), no fetching of anything the file names.
  let document;
  try {
    document = await getDocumentProxy(bytes, { isEvalSupported: false, disableFontFace: true });
  } catch (error) {
    if (/** @type {Error} */ (error).name === 'PasswordException') return { ok: false, encrypted: true };
    throw error;
  }
  const found = new Set();
  await scanDocument(document, found);
  /** @type {string[]} */
  const pages = [];
  let chars = 0;
  let links = 0;
  for (let n = 1; n <= document.numPages && found.size === 0; n++) {
    const page = await document.getPage(n);
    links += await scanPage(page, found);
    const content = await page.getTextContent();
    const text = content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join('');
    // Every page is counted, so the note can say how much was left out; only what fits is kept.
    if (chars < maxChars) pages.push(text);
    chars += (n > 1 ? 2 : 0) + text.length; // pages are joined by a blank line
    page.cleanup();
  }
  await document.destroy();
  if (found.size > 0) return { ok: false, refused: [...found] };
  const text = pages.join('\n\n').slice(0, maxChars);
  return { ok: true, text, chars, pages: document.numPages, links: Math.max(links, raw.links) };
}

read(/** @type {any} */ (workerData)).then(
  (result) => parentPort?.postMessage(result),
  (error) => parentPort?.postMessage({ ok: false, error: error instanceof Error ? error.message : String(error) }),
);

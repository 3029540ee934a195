// A document's text, worked out in a worker thread (document-reader.ts): a PDF through unpdf (pdf.js for
// servers), anything else decoded as UTF-8. A file someone sends can be built to make a parser slow or
// hungry (a PDF of nested objects, huge streams), so it is never parsed on the main thread, where it would
// stop every chat; the worker has a memory limit and is ended at its deadline. Only `maxChars` characters
// come back, with the whole length, so a huge file costs the main thread nothing.
// Plain JavaScript, so the same file runs from the source and from dist/.
import { parentPort, workerData } from 'node:worker_threads';
import { getDocumentProxy } from 'unpdf';

/**
 * @param {{ bytes: Uint8Array, pdf: boolean, maxChars: number }} job
 * @returns {Promise<{ text: string, chars: number, pages?: number }>}
 */
async function read({ bytes, pdf, maxChars }) {
  if (!pdf) {
    const text = new TextDecoder('utf-8').decode(bytes);
    return { text: text.slice(0, maxChars), chars: text.length };
  }
  // No eval (a PDF's fonts may carry code pdf.js would compile), no fetching of anything the file names.
  const document = await getDocumentProxy(bytes, { isEvalSupported: false, disableFontFace: true });
  /** @type {string[]} */
  const pages = [];
  let chars = 0;
  for (let n = 1; n <= document.numPages; n++) {
    const page = await document.getPage(n);
    const content = await page.getTextContent();
    const text = content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join('');
    // Every page is counted, so the note can say how much was left out; only what fits is kept.
    if (chars < maxChars) pages.push(text);
    chars += (n > 1 ? 2 : 0) + text.length; // pages are joined by a blank line
    page.cleanup();
  }
  await document.destroy();
  return { text: pages.join('\n\n').slice(0, maxChars), chars, pages: document.numPages };
}

read(/** @type {any} */ (workerData)).then(
  (result) => parentPort?.postMessage({ ok: true, ...result }),
  (error) => parentPort?.postMessage({ ok: false, error: error instanceof Error ? error.message : String(error) }),
);

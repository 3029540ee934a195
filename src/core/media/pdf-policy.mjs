// The PDF policy, run in the reading worker (document-worker.mjs) before any text is taken: a PDF is a
// program as much as a document. Refused: JavaScript, launch actions, embedded files (what can act on a
// machine that opens the file), and encrypted files (said so). Links to the web or to files are never
// followed — only text is taken — and are counted, so the model and the person are told they were left out.
// Looked for twice: in the raw bytes, names #-escaped or not (what a reader would act on, even in an
// object pdf.js would not parse), and through pdf.js (what sits in compressed object streams).
// Plain JavaScript, so the same file runs from the source and from dist/.

/** Characters that end a PDF name. */
const NAME = /\/[^\s/[\]<>(){}%]*#[0-9A-Fa-f]{2}[^\s/[\]<>(){}%]*/g;

/** `/J#61vaScript` → `/JavaScript`: the file's names as a reader sees them. */
const unescapeNames = (/** @type {string} */ text) =>
  text.replace(NAME, (name) =>
    name.replace(/#([0-9A-Fa-f]{2})/g, (_, /** @type {string} */ hex) => String.fromCharCode(parseInt(hex, 16))),
  );

/**
 * What the raw bytes hold: each refused thing found, links counted, encryption.
 * @param {Uint8Array} bytes
 */
export function scanBytes(bytes) {
  const text = unescapeNames(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1'));
  const found = new Set();
  if (/\/S\s*\/JavaScript\b|\/JS\s*[(<\d]|\/JavaScript\s*[<\d]/.test(text)) found.add('JavaScript');
  if (/\/S\s*\/Launch\b/.test(text)) found.add('a launch action');
  if (/\/EmbeddedFiles?\b|\/Subtype\s*\/FileAttachment\b/.test(text)) found.add('an embedded file');
  const links = (text.match(/\/S\s*\/(URI|GoToR|GoToE|SubmitForm|ImportData)\b/g) ?? []).length;
  return { found, links, encrypted: /\/Encrypt\s*[<\d]/.test(text) };
}

/**
 * The same, through pdf.js: the document's scripts and attachments.
 * @param {import('unpdf/pdfjs').PDFDocumentProxy} document
 * @param {Set<string>} found
 */
export async function scanDocument(document, found) {
  if (hasAny(await document.getJSActions())) found.add('JavaScript');
  if (hasAny(await document.getAttachments())) found.add('an embedded file');
}

/**
 * One page's scripts, attachments and links (how many, returned).
 * @param {import('unpdf/pdfjs').PDFPageProxy} page
 * @param {Set<string>} found
 */
export async function scanPage(page, found) {
  if (hasAny(await page.getJSActions())) found.add('JavaScript');
  let links = 0;
  for (const annotation of await page.getAnnotations({ intent: 'display' })) {
    if (hasAny(annotation.actions)) found.add('JavaScript');
    if (annotation.subtype === 'FileAttachment') found.add('an embedded file');
    if (annotation.url || annotation.unsafeUrl) links++;
  }
  return links;
}

const hasAny = (/** @type {unknown} */ value) => value != null && Object.keys(value).length > 0;

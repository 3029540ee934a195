// The HTML half of web_fetch's reading, run in a worker thread (extract.ts): Mozilla Readability on
// linkedom. Outside HTML can be built to make Readability slow (2,000 nested <div>s took 47 s), so it never
// runs on the main thread, where it would stop every chat and /healthz; the worker has a memory limit
// and is ended at its deadline. Plain JavaScript, so the same file runs from the source and from dist/.
import { parentPort, workerData } from 'node:worker_threads';
import readability from '@mozilla/readability';
import { parseHTML } from 'linkedom';

const BLOCKS = new Set(
  'P DIV SECTION ARTICLE HEADER FOOTER MAIN ASIDE NAV LI UL OL TR TABLE BLOCKQUOTE PRE H1 H2 H3 H4 H5 H6'
    .concat(' FIGCAPTION DT DD')
    .split(' '),
);
const SKIPPED = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE']);

/**
 * Text of `node` with a line break around every block element; spaces collapsed, blank lines dropped.
 * @param {any} node
 * @returns {string}
 */
function blockText(node) {
  /** @type {string[]} */
  const out = [];
  /** @param {any} n */
  const walk = (n) => {
    if (n.nodeType === 3) out.push(n.textContent ?? '');
    else if (n.nodeType === 1 || n.nodeType === 9 || n.nodeType === 11) {
      const tag = n.tagName ?? '';
      if (SKIPPED.has(tag)) return;
      if (tag === 'BR') out.push('\n');
      const block = BLOCKS.has(tag);
      if (block) out.push('\n');
      n.childNodes.forEach(walk);
      if (block) out.push('\n');
    }
  };
  walk(node);
  return out
    .join('')
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join('\n');
}

/**
 * The title and readable text of an HTML page: Readability's main content, else the whole body.
 * @param {string} body
 * @returns {{ title: string, text: string }}
 */
function readableHtml(body) {
  const { document } = parseHTML(body);
  const title = (document.title ?? '').trim();
  for (const junk of document.querySelectorAll('script, style, noscript, template')) junk.remove();
  // Readability changes the document it reads; it gets its own copy so the fallback still has the body.
  const copy = /** @type {any} */ (parseHTML(body).document);
  const article = new readability.Readability(copy, { serializer: (/** @type {any} */ node) => node }).parse();
  const main = article?.content ? blockText(article.content) : '';
  const text = main.length >= 200 ? main : blockText(document.body ?? document.documentElement);
  return { title: title || (article?.title ?? '').trim(), text };
}

parentPort?.postMessage(readableHtml(/** @type {{ body: string }} */ (workerData).body));

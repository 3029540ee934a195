// The HTML half of web_fetch's reading: Mozilla Readability on linkedom. extract.ts loads this file lazily
// (linkedom and Readability cost ~150 ms and ~12 MB of RSS to load, for a tool many installs never call);
// both packages are imported statically here, because a package loaded by import() is linked differently
// in the bundle (Readability is CommonJS: its named export would be missing in dist/ alone).
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import type { ReadablePage } from './extract.ts';

const BLOCKS = new Set([
  'P',
  'DIV',
  'SECTION',
  'ARTICLE',
  'HEADER',
  'FOOTER',
  'MAIN',
  'ASIDE',
  'NAV',
  'LI',
  'UL',
  'OL',
  'TR',
  'TABLE',
  'BLOCKQUOTE',
  'PRE',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'FIGCAPTION',
  'DT',
  'DD',
]);

/** The title and readable text of an HTML page: Readability's main content, else the whole body. */
export function readableHtml(body: string): ReadablePage {
  const { document } = parseHTML(body);
  const title = (document.title ?? '').trim();
  for (const junk of document.querySelectorAll('script, style, noscript, template')) junk.remove();
  // Readability changes the document it reads; it gets its own copy so the fallback still has the body.
  const copy = parseHTML(body).document as unknown as Document;
  const article = new Readability(copy, { serializer: (node) => node }).parse();
  const main = article?.content ? blockText(article.content as unknown as Node) : '';
  const text = main.length >= 200 ? main : blockText((document.body ?? document.documentElement) as unknown as Node);
  return { title: title || (article?.title ?? '').trim(), text };
}

/** Text of `node` with a line break around every block element; spaces collapsed, blank lines dropped. */
function blockText(node: Node): string {
  const out: string[] = [];
  const walk = (n: Node): void => {
    if (n.nodeType === 3) out.push(n.textContent ?? '');
    else if (n.nodeType === 1 || n.nodeType === 9 || n.nodeType === 11) {
      const tag = (n as Element).tagName ?? '';
      if (tag === 'SCRIPT' || tag === 'STYLE' || tag === 'NOSCRIPT' || tag === 'TEMPLATE') return;
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

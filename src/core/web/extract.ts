/** A page as the model gets it: its title and its readable text. */
export interface ReadablePage {
  title: string;
  text: string;
}

/** Content types web_fetch reads; others (images, archives, executables) are refused before their body is read. */
export const READABLE_TYPES = [
  'text/html',
  'application/xhtml+xml',
  'text/plain',
  'text/markdown',
  'text/csv',
  'application/json',
  'application/xml',
  'text/xml',
] as const;

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

/**
 * The readable text of a response: for HTML, Mozilla Readability's main content (the whole body when
 * it finds no article), one line per block; other text types as they are.
 *
 * @example
 * await readablePage('<title>Hi</title><p>One</p><p>Two</p>', 'text/html') // { title: 'Hi', text: 'One\nTwo' }
 */
export async function readablePage(body: string, contentType: string): Promise<ReadablePage> {
  if (contentType !== 'text/html' && contentType !== 'application/xhtml+xml') return { title: '', text: body.trim() };
  // Loaded on the first HTML page, not at start: linkedom and Readability cost ~150 ms and ~12 MB of RSS
  // to load, for a tool that many installs never call.
  const [{ Readability }, { parseHTML }] = await Promise.all([import('@mozilla/readability'), import('linkedom')]);
  const { document } = parseHTML(body);
  const title = (document.title ?? '').trim();
  for (const junk of document.querySelectorAll('script, style, noscript, template')) junk.remove();
  // Readability changes the document it reads; it gets its own copy so the fallback still has the body.
  const article = new Readability(parseHTML(body).document as unknown as Document, {
    serializer: (node) => node,
  }).parse();
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

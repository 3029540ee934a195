// The plain text of an HTML page, read in one pass with no parser: what web_fetch returns when a page is
// too complex to extract within its limits (html-worker.mjs). Linear in the page's length whatever its
// nesting, so it cannot be made slow.

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
const SKIPPED = ['script', 'style', 'noscript', 'template'];

/** Tags dropped, the contents of script/style/noscript/template dropped, a few entities decoded. */
export function plainTextOfHtml(html: string): string {
  const out: string[] = [];
  let at = 0;
  while (at < html.length) {
    const open = html.indexOf('<', at);
    if (open < 0) {
      out.push(html.slice(at));
      break;
    }
    out.push(html.slice(at, open));
    const close = html.indexOf('>', open);
    if (close < 0) break;
    // Matched in the page itself, not a lowercased copy: lowercasing can change a string's length (`İ`),
    // and positions found in the copy would then point elsewhere in the page.
    const name = /^<\s*([a-z]+)/i.exec(html.slice(open, Math.min(close, open + 20)))?.[1]?.toLowerCase();
    at = close + 1;
    if (name && SKIPPED.includes(name)) {
      const closing = new RegExp(`</${name}`, 'gi');
      closing.lastIndex = at;
      at = closing.exec(html)?.index ?? html.length;
    } else out.push(' ');
  }
  return out
    .join('')
    .replace(/&(#\d+|[a-z]+);/gi, (entity, name: string) =>
      name.startsWith('#') ? codePoint(Number(name.slice(1)), entity) : (ENTITIES[name.toLowerCase()] ?? entity),
    )
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join('\n');
}

/** `&#n;` as its character; an entity naming no character stays as written. */
function codePoint(n: number, entity: string): string {
  return Number.isInteger(n) && n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : entity;
}

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

/**
 * The readable text of a response: for HTML, Mozilla Readability's main content (the whole body when
 * it finds no article), one line per block; other text types as they are.
 *
 * @example
 * await readablePage('<title>Hi</title><p>One</p><p>Two</p>', 'text/html') // { title: 'Hi', text: 'One\nTwo' }
 */
export async function readablePage(body: string, contentType: string): Promise<ReadablePage> {
  if (contentType !== 'text/html' && contentType !== 'application/xhtml+xml') return { title: '', text: body.trim() };
  // Loaded on the first HTML page, not at start (html.ts says why).
  const { readableHtml } = await import('./html.ts');
  return readableHtml(body);
}

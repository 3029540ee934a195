import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { PACKAGE_ROOT } from '../package-root.ts';
import { plainTextOfHtml } from './html-text.ts';

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

/** What a page's extraction may take: the worker is ended past either, and the page's plain text is used. */
export interface ExtractLimits {
  timeoutMs: number;
  /** The worker's V8 heap (old generation), in MB. */
  memoryMb: number;
}

const LIMITS: ExtractLimits = { timeoutMs: 10_000, memoryMb: 256 };

/**
 * The readable text of a response: for HTML, Mozilla Readability's main content (the whole body when
 * it finds no article), one line per block, worked out in a worker thread within `limits` (a page
 * that exceeds them gives its plain text, and says so); other text types as they are.
 *
 * @example
 * await readablePage('<html><head><title>Hi</title></head><body><p>One</p><p>Two</p></body></html>', 'text/html')
 * // { title: 'Hi', text: 'One\nTwo' }
 */
export async function readablePage(body: string, contentType: string, limits = LIMITS): Promise<ReadablePage> {
  if (contentType !== 'text/html' && contentType !== 'application/xhtml+xml') return { title: '', text: body.trim() };
  try {
    return await readInWorker(body, limits);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    const note = `[the page could not be read for its main content (${why}); this is all of its text]`;
    return { title: '', text: `${note}\n${plainTextOfHtml(body)}` };
  }
}

/** Runs html-worker.mjs on `body`; rejects past the deadline or the memory limit, the worker ended. */
function readInWorker(body: string, limits: ExtractLimits): Promise<ReadablePage> {
  const worker = new Worker(WORKER_FILE, {
    workerData: { body },
    resourceLimits: { maxOldGenerationSizeMb: limits.memoryMb },
    stdout: true,
    stderr: true,
  });
  // Whatever the libraries print is not ours to show (`kazma chat` writes to the terminal): drained.
  worker.stdout.resume();
  worker.stderr.resume();
  return new Promise<ReadablePage>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`it took over ${limits.timeoutMs / 1000} s`));
      void worker.terminate();
    }, limits.timeoutMs);
    worker.once('message', (page: ReadablePage) => resolve(page));
    worker.once('error', (error: Error & { code?: string }) =>
      reject(
        new Error(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? `it needed over ${limits.memoryMb} MB` : error.message),
      ),
    );
    worker.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the reader stopped (exit code ${code})`));
    });
  }).finally(() => void worker.terminate());
}

/**
 * The worker's file, found from Kazma's folder: plain JavaScript beside this file in src/, so the source
 * and the bundle in dist/ (which has no file of its own for it) run the same one.
 */
const WORKER_FILE = join(PACKAGE_ROOT, 'src/core/web/html-worker.mjs');

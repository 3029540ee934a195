// A document someone sent, made into text for the model: its type decided from its name, declared type
// and first bytes; read in a worker thread within limits (document-worker.mjs); cut to a budget with a
// note; fenced as outside text, with the file's name, so what it says reaches the model as data.
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../package-root.ts';
import type { Attachment } from '../surface/index.ts';
import { fenceOutside } from '../tools/index.ts';
import { MediaRefusal } from './download.ts';
import { runWorker, type WorkerLimits } from './worker-run.ts';

/** How a document is read: the worker's limits, and how many characters of its text the model gets. */
export interface DocumentLimits extends WorkerLimits {
  maxChars: number;
}

const TEXT_TYPES = ['text/plain', 'text/markdown', 'text/x-markdown', 'text/csv', 'application/json'];
const TEXT_NAMES = /\.(txt|text|md|markdown|csv|json|log)$/i;
const READS = 'PDF, plain text, Markdown, CSV and JSON';

/** What kind of document it is, by its declared type or its name; a {@link MediaRefusal} for one Kazma cannot read. */
export function documentKind(attachment: Attachment, label: string): 'pdf' | 'text' {
  const mime = attachment.mime?.split(';')[0]?.trim().toLowerCase();
  if (mime === 'application/pdf' || /\.pdf$/i.test(attachment.name ?? '')) return 'pdf';
  if ((mime && TEXT_TYPES.includes(mime)) || TEXT_NAMES.test(attachment.name ?? '')) return 'text';
  const type = attachment.mime ? ` (${attachment.mime})` : '';
  throw new MediaRefusal(`📎 Kazma cannot read ${label}${type}: it reads images, ${READS}.`);
}

/** The document's text, fenced, for the model; a {@link MediaRefusal} when it cannot be read. */
export async function readDocument(
  bytes: Uint8Array,
  attachment: Attachment,
  label: string,
  limits: DocumentLimits,
): Promise<string> {
  const kind = documentKind(attachment, label);
  const head = Buffer.from(bytes.subarray(0, 8192));
  if (kind === 'pdf' && head.subarray(0, 5).toString('latin1') !== '%PDF-')
    throw new MediaRefusal(`📎 ${label} is not a PDF, whatever its name or type says, so it was not read.`);
  if (kind === 'text' && head.includes(0))
    throw new MediaRefusal(`📎 ${label} does not look like text (it holds binary bytes), so it was not read.`);
  const copy = new Uint8Array(bytes); // moved to the worker, not copied again
  let read: { ok: true; text: string; chars: number; pages?: number } | { ok: false; error: string };
  try {
    read = await runWorker(WORKER_FILE, { bytes: copy, pdf: kind === 'pdf', maxChars: limits.maxChars }, limits, [
      copy.buffer,
    ]);
  } catch (error) {
    throw new MediaRefusal(`⚠️ ${label} could not be read: ${(error as Error).message}.`);
  }
  if (!read.ok) throw new MediaRefusal(`⚠️ ${label} could not be read: ${read.error}.`);
  const name = attachment.name ?? (kind === 'pdf' ? 'document.pdf' : 'document.txt');
  const pages = read.pages === undefined ? '' : `, ${read.pages} page${read.pages === 1 ? '' : 's'}`;
  const cut =
    read.chars > read.text.length
      ? `\n[Only the first ${read.text.length} of its ${read.chars} characters are shown: it is longer than ` +
        'the budget for a document.]'
      : '';
  return `📎 ${name}${pages}\n${fenceOutside(read.text, `the file "${name}"`)}${cut}`;
}

/** The worker's file, found from Kazma's folder: the source and the bundle in dist/ run the same one. */
const WORKER_FILE = join(PACKAGE_ROOT, 'src/core/media/document-worker.mjs');

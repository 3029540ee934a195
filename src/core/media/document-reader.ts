// A document someone sent, made into text for the model: its type decided from its name, declared type
// and first bytes; read in a worker thread within limits (document-worker.mjs), a PDF after its policy
// (pdf-policy.mjs: scripts, launch actions, embedded files and encryption refused, links left out), a Word
// document (DOCX) by its text entry alone, unpacked within a cap (docx-text.mjs: a zip bomb stops there); cut
// to a budget with a note; fenced as outside text, with the file's name, so it reaches the model as data.
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
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const READS = 'PDF, Word (DOCX), plain text, Markdown, CSV and JSON';
type DocumentKind = 'pdf' | 'docx' | 'text';

/** What kind of document it is, by its declared type or its name; a {@link MediaRefusal} for one Kazma cannot read. */
export function documentKind(attachment: Attachment, label: string): DocumentKind {
  const mime = attachment.mime?.split(';')[0]?.trim().toLowerCase();
  if (mime === 'application/pdf' || /\.pdf$/i.test(attachment.name ?? '')) return 'pdf';
  if (mime === DOCX || /\.docx$/i.test(attachment.name ?? '')) return 'docx';
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
  if (kind === 'docx' && head.subarray(0, 4).toString('latin1') !== 'PK\x03\x04')
    throw new MediaRefusal(
      `📎 ${label} is not a Word document (DOCX), whatever its name or type says, so it was not read.`,
    );
  if (kind === 'text' && head.includes(0))
    throw new MediaRefusal(`📎 ${label} does not look like text (it holds binary bytes), so it was not read.`);
  const copy = new Uint8Array(bytes); // moved to the worker, not copied again
  let read: WorkerAnswer;
  try {
    // A DOCX's text entry may unpack to an eighth of the reader's memory: far past any real document.
    const job = { bytes: copy, kind, maxChars: limits.maxChars, maxUnpacked: (limits.memoryMb * 1024 ** 2) / 8 };
    read = await runWorker(WORKER_FILE, job, limits, [copy.buffer]);
  } catch (error) {
    throw new MediaRefusal(`⚠️ ${label} could not be read: ${sentence((error as Error).message)}.`);
  }
  if (!read.ok) throw new MediaRefusal(refusalOf(read, label));
  const name = attachment.name ?? `document.${kind === 'text' ? 'txt' : kind}`;
  const pages = read.pages === undefined ? '' : `, ${read.pages} page${read.pages === 1 ? '' : 's'}`;
  const cut =
    read.chars > read.text.length
      ? `\n[Only the first ${read.text.length} of its ${read.chars} characters are shown: it is longer than ` +
        'the budget for a document.]'
      : '';
  const links = read.links
    ? `\n[${read.links === 1 ? '1 link' : `${read.links} links`} to the web or to files were left out: only ` +
      'its text was read, nothing it points to.]'
    : '';
  return `📎 ${name}${pages}\n${fenceOutside(read.text, `the file "${name}"`)}${cut}${links}`;
}

/** What the worker answers (document-worker.mjs). */
type WorkerAnswer =
  | { ok: true; text: string; chars: number; pages?: number; links?: number }
  | { ok: false; error?: string; refused?: string[]; encrypted?: boolean };

/** The sentence for a document the worker did not read: the PDF policy's refusals, or its error. */
function refusalOf(read: Extract<WorkerAnswer, { ok: false }>, label: string): string {
  if (read.encrypted)
    return `🔒 ${label} is encrypted (it needs a password to open), so it was not read; send it unlocked.`;
  if (read.refused?.length) {
    const what =
      read.refused.length > 1 ? `${read.refused.slice(0, -1).join(', ')} and ${read.refused.at(-1)}` : read.refused[0];
    return (
      `⚠️ ${label} was not read: it holds ${what}, which can act on the machine of whoever opens it. ` +
      'Send it without them (printed to a new PDF, say).'
    );
  }
  return `⚠️ ${label} could not be read: ${sentence(read.error ?? 'the reader gave no answer')}.`;
}

/**
 * A reader's message made part of a sentence: its own full stop dropped ("Invalid PDF structure."), and a
 * parser out of stack (objects nested to exhaust it) said in the person's words.
 */
const sentence = (message: string) =>
  /call stack/i.test(message) ? 'it is nested too deeply to read' : message.trim().replace(/\.+$/, '');

/** The worker's file, found from Kazma's folder: the source and the bundle in dist/ run the same one. */
const WORKER_FILE = join(PACKAGE_ROOT, 'src/core/media/document-worker.mjs');

// `POST /v1/audio/transcriptions` of the fake OpenAI-compatible server, as OpenAI serves it: a
// multipart/form-data body with a `file` part and a `model` field (400 without either, or for a body that
// is not multipart), answered `{ text }`. The body is parsed by the platform's own multipart reader, so a
// client that sends anything but real multipart fails here as it would there. Each call is kept, with the
// file's bytes, so a test can count calls and compare what arrived.
import type { IncomingHttpHeaders } from 'node:http';

/** One transcription request as received. */
export interface FakeTranscription {
  model: string;
  fileName: string;
  fileType: string;
  bytes: Buffer;
  /** Every other form field (language, prompt, response_format, …). */
  fields: Record<string, string>;
}

/** What the fake hears in `bytes` unless a test scripted it: the same bytes always give the same words. */
export function defaultTranscript(bytes: Buffer): string {
  return `fake transcript of ${bytes.length} bytes`;
}

/** The status and JSON answer for one request; `accept` records a well-formed one and gives its text. */
export async function transcriptionResponse(
  headers: IncomingHttpHeaders,
  body: Buffer,
  accept: (call: FakeTranscription) => string,
): Promise<{ status: number; json: unknown }> {
  const bad = (message: string) => ({
    status: 400,
    json: { error: { message, type: 'invalid_request_error', param: null, code: null } },
  });
  const type = headers['content-type'] ?? '';
  if (!type.startsWith('multipart/form-data')) return bad('the body must be multipart/form-data');
  let form: FormData;
  try {
    form = await new Response(new Uint8Array(body), { headers: { 'content-type': type } }).formData();
  } catch {
    return bad('the multipart body could not be parsed');
  }
  const file = form.get('file');
  const model = form.get('model');
  if (!(file instanceof Blob) || typeof model !== 'string' || model === '')
    return bad('file (a file part) and model (a string) are required');
  const fields: Record<string, string> = {};
  for (const [name, value] of form.entries()) if (typeof value === 'string' && name !== 'model') fields[name] = value;
  const call: FakeTranscription = {
    model,
    fileName: file instanceof File ? file.name : '',
    fileType: file.type,
    bytes: Buffer.from(await file.arrayBuffer()),
    fields,
  };
  return { status: 200, json: { text: accept(call) } };
}

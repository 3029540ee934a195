// multipart/form-data as the Bot API reads it: more lenient than the WHATWG parser (grammy writes
// `filename=a.bin` unquoted and no space after the colons, which Telegram takes), and with Telegram's
// `attach://<name>` references: a field whose value names another part gets that part's file.
/** The fields of a multipart body: strings, and Files for the parts that carry a filename. */
export function parseMultipart(body: Buffer, contentType: string): Record<string, string | File> {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  if (!boundary) throw new Error('multipart body without a boundary');
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]!.trim()}`);
  const fields: Record<string, string | File> = {};
  let at = body.indexOf(delimiter);
  while (at !== -1) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const next = body.indexOf(delimiter, start);
    if (next === -1) throw new Error('multipart body cut short');
    const part = body.subarray(start + 2, next - 2); // past the CRLF after the delimiter, before the CRLF ending the part
    const split = part.indexOf('\r\n\r\n');
    const head = part.subarray(0, split).toString('utf8');
    const content = part.subarray(split + 4);
    const disposition = /content-disposition:\s*form-data\s*;(.*)/i.exec(head)?.[1] ?? '';
    const param = (key: string) => new RegExp(`${key}=(?:"([^"]*)"|([^;\\r\\n]+))`, 'i').exec(disposition);
    const name = param('name');
    const filename = /;\s*filename=/i.test(`;${disposition}`) ? param('filename') : null;
    const type = /content-type:\s*([^\r\n]+)/i.exec(head)?.[1]?.trim() ?? 'application/octet-stream';
    if (name) {
      const key = (name[1] ?? name[2]!).trim();
      fields[key] = filename
        ? new File([new Uint8Array(content)], (filename[1] ?? filename[2]!).trim(), { type })
        : content.toString('utf8');
    }
    at = next;
  }
  for (const [key, value] of Object.entries(fields)) {
    if (typeof value === 'string' && value.startsWith('attach://')) {
      const file = fields[value.slice('attach://'.length)];
      if (file instanceof File) fields[key] = file;
    }
  }
  return fields;
}

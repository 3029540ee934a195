// What an image really is, from its first bytes: the declared type is the sender's word, and a model
// provider refuses (or misreads) bytes that are not the image type the data: URL names.

const SIGNATURES: Array<{ mime: string; test: (b: Uint8Array) => boolean }> = [
  { mime: 'image/jpeg', test: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { mime: 'image/png', test: (b) => ascii(b, 1, 3) === 'PNG' && b[0] === 0x89 },
  { mime: 'image/gif', test: (b) => ascii(b, 0, 4) === 'GIF8' },
  { mime: 'image/webp', test: (b) => ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 4) === 'WEBP' },
];

const ascii = (bytes: Uint8Array, from: number, length: number) =>
  String.fromCharCode(...bytes.subarray(from, from + length));

/** The image type of `bytes` (JPEG, PNG, GIF or WebP: what vision models take), or undefined. */
export function imageTypeOf(bytes: Uint8Array): string | undefined {
  return SIGNATURES.find((s) => s.test(bytes))?.mime;
}

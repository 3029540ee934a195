// `POST /v1/embeddings` of the fake OpenAI-compatible server, in the OpenAI shape. A vector is a hashed
// bag of words (256 dimensions, unit length): texts that share words are similar, texts that share none
// are near 0, and the same text always gets the same vector — what recall's tests need of a real model.
import { createHash } from 'node:crypto';

export const FAKE_EMBEDDING_DIMENSIONS = 256;

/** The body of an embeddings request, as the fake reads it. */
export interface EmbeddingsRequestBody {
  model?: unknown;
  input?: unknown;
}

/** One word's bucket and sign: stable across runs and processes. */
function bucket(word: string): { index: number; sign: number } {
  const digest = createHash('sha256').update(word).digest();
  return { index: digest.readUInt16BE(0) % FAKE_EMBEDDING_DIMENSIONS, sign: digest[2]! & 1 ? 1 : -1 };
}

/** The fake's vector for `text`: its words (letters and digits of any script, lowercased) hashed and summed. */
export function fakeEmbedding(text: string): number[] {
  const vector = new Array<number>(FAKE_EMBEDDING_DIMENSIONS).fill(0);
  for (const word of text
    .normalize('NFKC')
    .toLowerCase()
    .match(/[\p{L}\p{M}\p{N}]+/gu) ?? []) {
    const { index, sign } = bucket(word);
    vector[index]! += sign;
  }
  const norm = Math.hypot(...vector);
  return norm === 0 ? vector : vector.map((v) => v / norm);
}

/** The status and JSON body the fake answers `body` with: 400 as OpenAI does for a missing model or input. */
export function embeddingsResponse(body: EmbeddingsRequestBody): { status: number; json: unknown } {
  const inputs = typeof body.input === 'string' ? [body.input] : body.input;
  const valid = Array.isArray(inputs) && inputs.length > 0 && inputs.every((i) => typeof i === 'string');
  if (typeof body.model !== 'string' || body.model === '' || !valid) {
    const message = 'model (a string) and input (a string or an array of strings) are required';
    return { status: 400, json: { error: { message, type: 'invalid_request_error', code: null } } };
  }
  const tokens = (inputs as string[]).reduce((n, text) => n + Math.ceil(text.length / 4), 0);
  return {
    status: 200,
    json: {
      object: 'list',
      data: (inputs as string[]).map((text, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(text) })),
      model: body.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    },
  };
}

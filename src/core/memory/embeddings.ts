// Embeddings from an OpenAI-compatible endpoint: `POST <base_url>/embeddings` with `{ model, input }`.
import type { KazmaConfig } from '../config/index.ts';
import { KazmaError } from '../errors.ts';
import type { Embedding } from './similarity.ts';

/** Where embeddings come from. */
export interface EmbeddingsSettings {
  /** Without the trailing slash, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
}

const OPENAI = 'https://api.openai.com/v1';

/**
 * The endpoint of `memory.embeddings`: its own base_url (and api_key), else the chat model's endpoint when
 * it is OpenAI-compatible (`model.provider: openai`). Undefined when there is none (Anthropic has no
 * embeddings): memory then finds notes by full text only.
 */
export function embeddingsSettings(config: KazmaConfig): EmbeddingsSettings | undefined {
  const own = config.memory.embeddings;
  const shared = own.base_url === '' && config.model.provider === 'openai';
  if (own.base_url === '' && !shared) return undefined;
  return {
    baseUrl: (shared ? config.model.base_url || OPENAI : own.base_url).replace(/\/+$/, ''),
    apiKey: shared ? own.api_key || config.model.api_key : own.api_key,
    model: own.name,
    timeoutMs: own.timeout,
  };
}

/** The endpoint refused or could not be reached; memory goes on by full text. */
export class EmbeddingsError extends KazmaError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('embeddings_failed', message, options);
  }
}

interface EmbeddingsReply {
  data?: Array<{ index?: number; embedding?: unknown }>;
}

/** Asks the endpoint for vectors; the `fetch` seam is the global one unless a test hands another. */
export class EmbeddingsClient {
  constructor(
    readonly settings: EmbeddingsSettings,
    private readonly fetchFn: typeof fetch = fetch,
  ) {}

  /** One embedding per text, in order; throws {@link EmbeddingsError}. */
  async embed(texts: readonly string[]): Promise<Embedding[]> {
    const { baseUrl, apiKey, model, timeoutMs } = this.settings;
    let response: Response;
    try {
      response = await this.fetchFn(`${baseUrl}/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(apiKey && { authorization: `Bearer ${apiKey}` }) },
        body: JSON.stringify({ model, input: texts }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new EmbeddingsError(`${baseUrl}/embeddings did not answer: ${(error as Error).message}`, { cause: error });
    }
    if (!response.ok) {
      const body = (await response.text().catch(() => '')).slice(0, 200);
      throw new EmbeddingsError(`${baseUrl}/embeddings answered ${response.status}: ${body}`);
    }
    const reply = (await response.json().catch(() => ({}))) as EmbeddingsReply;
    const vectors = [...(reply.data ?? [])].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)).map((d) => d.embedding);
    const valid = (v: unknown): v is number[] => Array.isArray(v) && v.length > 0 && v.every(Number.isFinite);
    if (vectors.length !== texts.length || !vectors.every(valid)) {
      throw new EmbeddingsError(`${baseUrl}/embeddings answered without one vector per text`);
    }
    return vectors.map((vector) => ({ model, vector }));
  }
}

import type { DoctorCheck } from '../doctor.ts';
import { EmbeddingsClient, type EmbeddingsSettings } from './embeddings.ts';

const FULL_TEXT_ONLY = 'memory recall uses full-text only';

/**
 * `kazma doctor`'s memory line: the embeddings endpoint answers (notes are found by meaning and words), or a
 * warning that memory works by full-text search alone — it still works, so never a failure.
 */
export function memoryDoctorCheck(settings: EmbeddingsSettings | undefined, fetchFn?: typeof fetch): DoctorCheck {
  return {
    name: 'memory',
    async run() {
      if (!settings) {
        return {
          status: 'warn',
          detail: `${FULL_TEXT_ONLY}: no embeddings endpoint (model.provider is not openai)`,
          fix: 'Set memory.embeddings.base_url (and api_key) to an OpenAI-compatible endpoint',
        };
      }
      try {
        const [embedding] = await new EmbeddingsClient(settings, fetchFn).embed(['kazma doctor']);
        return `embeddings from ${settings.model} at ${settings.baseUrl} (${embedding!.vector.length} dimensions)`;
      } catch (error) {
        return {
          status: 'warn',
          detail: `${FULL_TEXT_ONLY}: ${(error as Error).message}`,
          fix: 'Check memory.embeddings.base_url, api_key and name (or model.base_url when they are empty)',
        };
      }
    },
  };
}

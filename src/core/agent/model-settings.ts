// The `model` section of kazma.yaml as the agent sees it. A plain interface for now; the config module's
// zod schema produces this shape and the two will be reconciled into one type.

/** Which client speaks to the model: `openai` covers any OpenAI-compatible server via `base_url`. */
export type ModelProvider = 'openai' | 'anthropic';

/** One model to call: the primary, or a fallback. */
export interface ModelEntry {
  provider: ModelProvider;
  /** Model id, e.g. `gpt-4o-mini`. */
  name: string;
  /** `''` means the provider's own endpoint. */
  base_url: string;
  /** May be `''` for a local OpenAI-compatible server reached through `base_url`. */
  api_key: string;
}

/**
 * `model` in kazma.yaml.
 * @example
 * { provider: 'openai', name: 'gpt-4o-mini', base_url: '', api_key: 'sk-…',
 *   timeout_ms: 60000, max_retries: 3, fallbacks: [] }
 */
export interface ModelSettings extends ModelEntry {
  /** Per-request timeout in milliseconds; default 60000. */
  timeout_ms: number;
  /** Retries after the first attempt, for transient failures only; default 3. Applies to each fallback too. */
  max_retries: number;
  /** Tried in order once the primary has failed for good. They share `timeout_ms` and `max_retries`. */
  fallbacks: ModelEntry[];
}

export const MODEL_DEFAULTS = { timeout_ms: 60_000, max_retries: 3 } as const;

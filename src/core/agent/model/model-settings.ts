// The `model` section of kazma.yaml as the agent sees it: the config schema's own type, not a copy,
// so a key added to the schema reaches the model chain without a hand-kept twin drifting apart.
import type { KazmaConfig } from '../../config/index.ts';

/**
 * `model` in kazma.yaml, after validation: durations are milliseconds (`timeout`).
 * @example
 * { provider: 'openai', name: 'gpt-4o-mini', base_url: '', api_key: 'sk-…',
 *   timeout: 60000, max_retries: 3, fallbacks: [] }
 */
export type ModelSettings = Omit<KazmaConfig['model'], 'vision' | 'transcription'>;

/** One model to call: the primary, or a fallback. `base_url: ''` means the provider's own endpoint. */
export type ModelEntry = ModelSettings['fallbacks'][number];

// Builds one LangChain chat model per `model` entry of kazma.yaml. Retries are off in every client:
// `withRetry` is the only retry loop, so attempts, delays and fallbacks are decided in one place.
import { ChatOpenAI } from '@langchain/openai';
import { ChatAnthropic } from '@langchain/anthropic';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { KazmaError } from '../../errors.ts';
import { modelFetch } from './model-fetch.ts';
import type { ModelEntry, ModelSettings } from './model-settings.ts';

// Explicit provider endpoints: with `base_url: ''` the clients would otherwise fall back to
// OPENAI_BASE_URL / ANTHROPIC_API_URL from the environment, and config is read in one place only.
const DEFAULT_BASE_URL = { openai: 'https://api.openai.com/v1', anthropic: 'https://api.anthropic.com' } as const;

// OpenAI-compatible local servers (llama.cpp, Ollama, vLLM) need no key, but the SDKs refuse an empty one.
const NO_KEY_PLACEHOLDER = 'not-needed';

/** A model entry can be called: it has a name and either a key or its own endpoint. */
export function isModelConfigured(entry: Pick<ModelEntry, 'name' | 'api_key' | 'base_url'>): boolean {
  return modelGap(entry) === undefined;
}

/**
 * What a model entry lacks before it can be called: `name` (no model at all), `key` (a named model on the
 * provider's own endpoint with no API key), or undefined. A person is told the one they must set.
 */
export function modelGap(entry: Pick<ModelEntry, 'name' | 'api_key' | 'base_url'>): 'name' | 'key' | undefined {
  if (entry.name.trim() === '') return 'name';
  return entry.api_key === '' && entry.base_url === '' ? 'key' : undefined;
}

/** The URL a model entry is called at: its `base_url`, else its provider's own endpoint. */
export function endpointOf(entry: Pick<ModelEntry, 'provider' | 'base_url'>): string {
  return entry.base_url !== '' ? entry.base_url : DEFAULT_BASE_URL[entry.provider];
}

/** `openai:gpt-4o-mini` — how logs and error messages name a model. */
export function modelLabel(entry: Pick<ModelEntry, 'provider' | 'name'>): string {
  return `${entry.provider}:${entry.name}`;
}

/**
 * A chat model for `entry`, with `opts.timeoutMs` (kazma.yaml `model.timeout`) per request and no client-side retries.
 * Throws `KazmaError('model_not_configured')` when `isModelConfigured(entry)` is false.
 * @example
 * createChatModel(
 *   { provider: 'openai', name: 'qwen', base_url: 'http://127.0.0.1:8080/v1', api_key: '' },
 *   { timeoutMs: 60000 },
 * )
 */
export function createChatModel(entry: ModelEntry, opts: { timeoutMs: number }): BaseChatModel {
  if (!isModelConfigured(entry)) {
    throw new KazmaError(
      'model_not_configured',
      `model ${modelLabel(entry)} is not configured: set model.name and model.api_key (or model.base_url for a ` +
        `local server)`,
    );
  }
  const apiKey = entry.api_key !== '' ? entry.api_key : NO_KEY_PLACEHOLDER;
  const baseURL = endpointOf(entry);
  if (entry.provider === 'anthropic') {
    return new ChatAnthropic({
      model: entry.name,
      apiKey,
      anthropicApiUrl: baseURL,
      maxRetries: 0,
      clientOptions: { timeout: opts.timeoutMs, fetch: modelFetch },
    });
  }
  // `streaming` stays unset: `streaming: true` makes invoke() fetch tiktoken data from the internet
  // (hangs offline). `disableStreaming`: LangChain never streams it (a token tap preferring streaming
  // included): a live answer is streamed below it, by Kazma's fetch (streamed-answer.ts).
  return new ChatOpenAI({
    model: entry.name,
    apiKey,
    maxRetries: 0,
    disableStreaming: true,
    timeout: opts.timeoutMs,
    configuration: { baseURL, fetch: modelFetch },
  });
}

/** Primary first, then the fallbacks in the order kazma.yaml lists them. */
export function modelEntries(settings: ModelSettings): ModelEntry[] {
  const { provider, name, base_url, api_key } = settings;
  return [{ provider, name, base_url, api_key }, ...settings.fallbacks];
}

// The fixed texts a turn can end with instead of a model's words. Each says what happened and what to do.
import type { ModelUnavailableError } from '../model/model-errors.ts';

/** Every turn's answer while no model is configured. */
export const NO_MODEL_TEXT =
  '⚠️ No model is configured, so I cannot answer. Set model.name and model.api_key in kazma.yaml ' +
  '(or model.base_url for a local OpenAI-compatible server) and restart Kazma.';

/** Every turn's answer while the model is named but has no key (and no endpoint of its own). */
export function noKeyText(model: string): string {
  const env = model.startsWith('anthropic:') ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY';
  return (
    `⚠️ The model ${model} has no API key, so I cannot answer. Set model.api_key in kazma.yaml (or ${env}), ` +
    'or model.base_url for a local OpenAI-compatible server, and restart Kazma.'
  );
}

/** A turn whose model (and every fallback) failed. */
export function modelFailedText(error: ModelUnavailableError): string {
  const attempts = `${error.attempts} attempt${error.attempts === 1 ? '' : 's'}`;
  const status =
    error.status !== undefined ? `HTTP ${error.status}` : error.kind === 'transient' ? 'unreachable' : 'rejected';
  const fallbacks = error.fallbacks.length > 0 ? ` and ${error.fallbacks.length} fallback model(s)` : '';
  return (
    `⚠️ The model ${error.model} failed (${status}, ${attempts})${fallbacks}, so this turn has no answer. ` +
    `Hint: ${error.hint}.`
  );
}

/** Appended to a reply a fallback model wrote. */
export function fallbackNote(model: string): string {
  return `(answered by fallback ${model})`;
}

/** A turn that broke for a reason of our own (a bug, the database); the log has the details. */
export function turnFailedText(message: string): string {
  return `⚠️ This turn failed: ${message}. Nothing more was done; the details are in Kazma's log.`;
}

/** A turn that looped past the step limit. */
export const TOO_MANY_STEPS_TEXT =
  '⚠️ I stopped this turn after too many steps without an answer. Ask again more specifically, or start over ' +
  'with /new.';

// `kazma doctor`'s model check: one cheap request (the provider's model listing, which costs no tokens)
// that shows the endpoint answers, the key is accepted and the model exists — naming the URL and where
// the key came from when something is wrong.
import type { DoctorWarning } from '../../doctor.ts';
import { endpointOf, isModelConfigured, modelGap, modelLabel } from './model-factory.ts';
import { modelErrorHint, type ModelCallSite } from './model-errors.ts';
import type { ModelEntry } from './model-settings.ts';

/** Doctor's finding when no model is configured: Kazma runs, and says how to set one (secrets in the environment). */
export const NO_MODEL: DoctorWarning = {
  status: 'warn',
  detail: 'no model is configured, so every turn answers with how to set one',
  fix:
    'Set KAZMA_MODEL (e.g. gpt-4o-mini) and OPENAI_API_KEY in the environment — or OPENAI_BASE_URL for a local ' +
    'OpenAI-compatible server (Ollama, llama.cpp, vLLM); the tracked kazma.yaml reads them as model.name, ' +
    'model.api_key and model.base_url',
};

/** Doctor's finding when the model is named but has no key and no endpoint of its own ("no key", not "no model"). */
export function noKeyWarning(entry: Pick<ModelEntry, 'provider' | 'name'>): DoctorWarning {
  const env = entry.provider === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY';
  return {
    status: 'warn',
    detail: `the model ${modelLabel(entry)} has no API key, so every turn answers with how to set one`,
    fix: `Set ${env} in the environment (or model.api_key in kazma.yaml), or model.base_url for a local server`,
  };
}

/** What doctor says of a model entry that cannot be called yet (model-factory.ts modelGap). */
export function unconfiguredWarning(entry: ModelEntry): DoctorWarning {
  return modelGap(entry) === 'key' ? noKeyWarning(entry) : NO_MODEL;
}

/** Checks one model entry; resolves with what answered, throws an Error saying what is wrong. */
export async function probeModel(
  entry: ModelEntry,
  site: ModelCallSite,
  options: { timeoutMs?: number } = {},
): Promise<string> {
  if (!isModelConfigured(entry)) {
    const { detail, fix } = unconfiguredWarning(entry);
    throw new Error(`${detail}. ${fix}`);
  }
  const base = endpointOf(entry).replace(/\/+$/, '');
  const anthropic = entry.provider === 'anthropic';
  const url = anthropic ? `${base}/v1/models/${encodeURIComponent(entry.name)}` : `${base}/models`;
  const headers: Record<string, string> = anthropic
    ? { 'x-api-key': entry.api_key, 'anthropic-version': '2023-06-01' }
    : entry.api_key !== ''
      ? { authorization: `Bearer ${entry.api_key}` }
      : {};
  let response: Response;
  try {
    response = await fetch(url, { headers, signal: AbortSignal.timeout(options.timeoutMs ?? 10_000) });
  } catch (error) {
    const code = (error as { cause?: { code?: string } }).cause?.code;
    if (code === 'ECONNREFUSED')
      throw new Error(modelErrorHint({ kind: 'transient', refused: true, message: '' }, site));
    throw new Error(`${site.endpoint} could not be reached: ${code ?? (error as Error).message}`);
  }
  if (response.status === 401 || response.status === 403)
    throw new Error(`${site.endpoint} refused the key from ${site.keyFrom} (HTTP ${response.status})`);
  if (anthropic) {
    if (response.status === 404)
      throw new Error(`${site.endpoint} answers, but has no model "${entry.name}": check ${site.nameKey}`);
    if (!response.ok) throw new Error(`${site.endpoint} answered HTTP ${response.status} to ${url}`);
    return `${modelLabel(entry)} answers at ${site.endpoint}, key from ${site.keyFrom}`;
  }
  if (!response.ok)
    throw new Error(
      `${site.endpoint} answered HTTP ${response.status} to GET /models: is model.base_url the API root (usually ` +
        `ending in /v1)?`,
    );
  const listed =
    ((await response.json().catch(() => ({}))) as { data?: Array<{ id?: unknown }> }).data?.map((m) => String(m.id)) ??
    [];
  if (listed.length > 0 && !listed.includes(entry.name)) {
    const some = listed.slice(0, 8).join(', ');
    throw new Error(
      `${site.endpoint} answers, but does not list model "${entry.name}" (${site.nameKey}); it lists: ` +
        `${some}${listed.length > 8 ? ', …' : ''}`,
    );
  }
  return (
    `${modelLabel(entry)} answers at ` +
    `${site.endpoint}${entry.api_key !== '' ? `, key from ${site.keyFrom} accepted` : ''}`
  );
}

// Shared test settings: a primary pointed at a fake server, with no key (the local-server case).
import type { ModelSettings } from '../../../src/core/agent/model/model-settings.ts';

export function fakeSettings(baseURL: string, over: Partial<ModelSettings> = {}): ModelSettings {
  return {
    provider: 'openai',
    name: 'fake-model',
    base_url: baseURL,
    api_key: '',
    timeout: 10_000,
    max_retries: 3,
    fallbacks: [],
    ...over,
  };
}

/** A tool spec as the registry will hand it to the model chain. */
export const readFileTool = {
  name: 'read_file',
  description: 'Read a file from the workspace',
  schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

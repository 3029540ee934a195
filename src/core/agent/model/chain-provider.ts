import type { KazmaConfig } from '../../config/index.ts';
import type { ToolRegistry, ToolSpec } from '../../tools/index.ts';
import { createModelChain, type ModelChain, type ModelChainOptions, type ModelToolSpec } from './model-chain.ts';
import { isModelConfigured, modelEntries, modelGap, modelLabel } from './model-factory.ts';
import type { ModelSettings } from './model-settings.ts';

/**
 * kazma.yaml `model` as the model chain's settings: the same object, since ModelSettings is the config
 * section's own type.
 * @deprecated Pass `config.model` as the settings directly.
 */
export function modelSettingsFromConfig(model: KazmaConfig['model']): ModelSettings {
  return model;
}

/** Options for {@link ModelChains}. */
export interface ModelChainsOptions {
  settings: ModelSettings;
  registry: ToolRegistry;
  /** Backoff tuning passed to the chain (tests shorten waits); default the chain's own. */
  retry?: ModelChainOptions['retry'];
  /** LoadedConfig.sources: which environment variable gave each key its value. */
  sources?: ModelChainOptions['sources'];
  /** Counts each model's calls, time and tokens. */
  meter?: ModelChainOptions['meter'];
  /** The model name an operator chose for a chat (`/config model use`); undefined: kazma.yaml's order. */
  preferred?: (chat: string) => string | undefined;
}

/**
 * `settings` with the entry named `name` tried first and the others after it in their order; unchanged when
 * no entry has that name (a choice saved before kazma.yaml dropped the model) or it is first already.
 */
export function withFirst(settings: ModelSettings, name: string | undefined): ModelSettings {
  const entries = modelEntries(settings);
  const chosen = entries.findIndex((entry) => entry.name === name);
  if (chosen <= 0) return settings;
  const [first, ...rest] = [entries[chosen]!, ...entries.filter((_, i) => i !== chosen)];
  return { ...settings, ...first, fallbacks: rest };
}

/**
 * The model chain bound to the tools enabled right now. Tools can be switched on and off at runtime,
 * so the chain is rebuilt when the set changes and reused otherwise. No chain at all when the
 * primary model is not configured: Kazma still runs and says how to configure one.
 */
export class ModelChains {
  readonly #options: ModelChainsOptions;
  /** One chain per first model in use (kazma.yaml's own first: ''), each for the current tools. */
  readonly #cached = new Map<string, { specs: ToolSpec[]; key: string; chain: ModelChain }>();

  constructor(options: ModelChainsOptions) {
    this.#options = options;
  }

  /** True when the primary model has a name and a key or endpoint. */
  get configured(): boolean {
    return isModelConfigured(this.#options.settings);
  }

  /** What the primary model lacks (model-factory.ts modelGap); undefined when it can be called. */
  get gap(): 'name' | 'key' | undefined {
    return modelGap(this.#options.settings);
  }

  /** The models in the order tried in `chat` (default kazma.yaml's), e.g. `['openai:gpt-4o-mini', 'openai:backup']`. */
  labels(chat?: string): string[] {
    return modelEntries(this.#settingsFor(chat)).map(modelLabel);
  }

  #settingsFor(chat: string | undefined): ModelSettings {
    const name = chat === undefined ? undefined : this.#options.preferred?.(chat);
    return withFirst(this.#options.settings, name);
  }

  /** The chain for the current tools in `chat` (default: kazma.yaml's order); undefined: no model configured. */
  current(chat?: string): ModelChain | undefined {
    if (!this.configured) return undefined;
    const settings = this.#settingsFor(chat);
    const first = settings === this.#options.settings ? '' : settings.name;
    const cached = this.#cached.get(first);
    // A spec object stands for one tool definition for good (tools/specs.ts): the same objects in the
    // same order are the same tools, so the chain is rebuilt only when the enabled tools change.
    const specs = this.#options.registry.toolSpecs();
    if (cached?.specs.length === specs.length && cached.specs.every((spec, i) => spec === specs[i]))
      return cached.chain;
    const tools: ModelToolSpec[] = specs.map(({ function: f }) => ({
      name: f.name,
      description: f.description,
      schema: { type: 'object', ...f.parameters },
    }));
    const key = JSON.stringify(tools);
    if (cached?.key !== key) {
      this.#cached.set(first, {
        specs,
        key,
        chain: createModelChain(settings, {
          tools,
          ...(this.#options.retry && { retry: this.#options.retry }),
          ...(this.#options.sources && { sources: this.#options.sources }),
          ...(this.#options.meter && { meter: this.#options.meter }),
        }),
      });
    } else {
      this.#cached.set(first, { ...cached, specs });
    }
    return this.#cached.get(first)!.chain;
  }
}

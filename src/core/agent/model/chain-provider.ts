import type { KazmaConfig } from '../../config/index.ts';
import type { ToolRegistry, ToolSpec } from '../../tools/index.ts';
import { createModelChain, type ModelChain, type ModelChainOptions, type ModelToolSpec } from './model-chain.ts';
import { isModelConfigured, modelEntries, modelLabel } from './model-factory.ts';
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
}

/**
 * The model chain bound to the tools enabled right now. Tools can be switched on and off at runtime,
 * so the chain is rebuilt when the set changes and reused otherwise. No chain at all when the
 * primary model is not configured: Kazma still runs and says how to configure one.
 */
export class ModelChains {
  readonly #options: ModelChainsOptions;
  #cached: { specs: ToolSpec[]; key: string; chain: ModelChain } | undefined;

  constructor(options: ModelChainsOptions) {
    this.#options = options;
  }

  /** True when the primary model has a name and a key or endpoint. */
  get configured(): boolean {
    return isModelConfigured(this.#options.settings);
  }

  /** The models in the order tried, e.g. `['openai:gpt-4o-mini', 'openai:backup']`. */
  get labels(): string[] {
    return modelEntries(this.#options.settings).map(modelLabel);
  }

  /** The chain for the current tools, or undefined when no model is configured. */
  current(): ModelChain | undefined {
    if (!this.configured) return undefined;
    // A spec object stands for one tool definition for good (tools/specs.ts): the same objects in the
    // same order are the same tools, so the chain is rebuilt only when the enabled tools change.
    const specs = this.#options.registry.toolSpecs();
    if (this.#cached?.specs.length === specs.length && this.#cached.specs.every((spec, i) => spec === specs[i]))
      return this.#cached.chain;
    const tools: ModelToolSpec[] = specs.map(({ function: f }) => ({
      name: f.name,
      description: f.description,
      schema: { type: 'object', ...f.parameters },
    }));
    const key = JSON.stringify(tools);
    if (this.#cached?.key !== key) {
      this.#cached = {
        specs,
        key,
        chain: createModelChain(this.#options.settings, {
          tools,
          ...(this.#options.retry && { retry: this.#options.retry }),
          ...(this.#options.sources && { sources: this.#options.sources }),
          ...(this.#options.meter && { meter: this.#options.meter }),
        }),
      };
    } else {
      this.#cached = { ...this.#cached, specs };
    }
    return this.#cached.chain;
  }
}

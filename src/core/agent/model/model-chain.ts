// The model the agent talks to: the primary with retries, then each fallback with its own retries.
// Failing honestly is part of the contract: when every model fails the caller gets a
// ModelUnavailableError describing the primary's failure (and the fallbacks'), never a made-up reply.
import { answerWords } from './answer-words.ts';
import type { BaseLanguageModelInput } from '@langchain/core/language_models/base';
import type { AIMessage } from '@langchain/core/messages';
import type { Runnable, RunnableConfig } from '@langchain/core/runnables';
import { KazmaError } from '../../errors.ts';
import { maskText } from '../../secrets/index.ts';
import { createChatModel, endpointOf, modelEntries, modelLabel } from './model-factory.ts';
import { ModelUnavailableError, type ModelCallSite, type ModelFailure } from './model-errors.ts';
import { retryOutcome, type RetryOptions } from './retry.ts';
import type { ModelEntry, ModelSettings } from './model-settings.ts';
import type { Meter, ModelCallEnd, TokenUse } from '../../metrics/index.ts';

/** A tool as the model sees it: `schema` is a JSON Schema object (`{ type: 'object', properties, … }`). */
export interface ModelToolSpec {
  name: string;
  description: string;
  schema: Record<string, unknown> & { type: string };
}

export interface ModelReply {
  message: AIMessage;
  /** Label of the model that answered, e.g. `openai:gpt-4o-mini`. */
  model: string;
  usedFallback: boolean;
}

export interface ModelChain {
  /** Labels in the order they are tried. */
  readonly models: readonly string[];
  invoke(messages: BaseLanguageModelInput, config?: RunnableConfig): Promise<ModelReply>;
}

export interface ModelChainOptions {
  tools?: ModelToolSpec[];
  /** Backoff seams and tuning; `maxRetries` always comes from settings.max_retries. */
  retry?: Omit<RetryOptions, 'maxRetries' | 'signal'>;
  /** Which environment variable gave each config key its value (LoadedConfig.sources), to name a key's origin. */
  sources?: Readonly<Record<string, string>>;
  /** Counts each model's calls (by provider and status class), their time and tokens; absent: not counted. */
  meter?: Pick<Meter, 'modelCall' | 'tracing'>;
}

type Callable = Runnable<BaseLanguageModelInput, AIMessage>;

/**
 * Builds every configured model now, so a misconfigured fallback fails at start, not mid-outage.
 * @example
 * const chain = createModelChain(config.model, { tools: registry.specs() });
 * const { message, usedFallback } = await chain.invoke(state.messages, runConfig);
 */
export function createModelChain(settings: ModelSettings, opts: ModelChainOptions = {}): ModelChain {
  const built = modelEntries(settings).map((entry, i) => {
    const chat = createChatModel(entry, { timeoutMs: settings.timeout });
    let callable: Callable = chat;
    if (opts.tools && opts.tools.length > 0) {
      // Both chat classes accept { name, description, schema: JSONSchema } and render it for their API.
      if (!chat.bindTools)
        throw new KazmaError('model_no_tools', `${modelLabel(entry)} cannot call tools: pick another model.name`);
      callable = chat.bindTools(opts.tools);
    }
    return {
      label: modelLabel(entry),
      name: entry.name,
      provider: entry.provider,
      callable,
      site: callSite(entry, i === 0 ? 'model' : `model.fallbacks[${i - 1}]`, opts.sources ?? {}),
    };
  });

  return {
    models: built.map((b) => b.label),
    async invoke(messages, config) {
      const failures: ModelFailure[] = [];
      let primaryError: unknown;
      for (const [i, { label, name, provider, callable, site }] of built.entries()) {
        if (i > 0) answerWords()?.fallback?.(label); // the words shown so far were the failed model's
        const started = performance.now();
        const call = async (end?: (e: ModelCallEnd) => void) => {
          const out = await retryOutcome(() => callable.invoke(messages, config), {
            ...opts.retry,
            maxRetries: settings.max_retries,
            ...(config?.signal && { signal: config.signal }),
          });
          end?.(out.ok ? { ok: true, tokens: tokensOf(out.value), text: out.value.text } : failedCall(out.info.status));
          return out;
        };
        const out = opts.meter ? await opts.meter.tracing.model({ provider, model: name }, call) : await call();
        opts.meter?.modelCall({
          provider,
          ok: out.ok,
          seconds: (performance.now() - started) / 1000,
          ...(out.ok ? { tokens: tokensOf(out.value) } : out.info.status !== undefined && { status: out.info.status }),
        });
        if (out.ok) return { message: out.value, model: label, usedFallback: i > 0 };
        // The caller cancelled the turn: not the model's fault, and no fallback should be tried.
        if (config?.signal?.aborted) throw out.error;
        failures.push({ model: label, attempts: out.attempts, info: out.info, site });
        if (i === 0) primaryError = out.error;
      }
      const [primary, ...rest] = failures;
      throw new ModelUnavailableError(primary!, rest, { cause: primaryError });
    },
  };
}

/** Where `entry` (the config section at `path`) is called, and where its key came from. */
export function callSite(entry: ModelEntry, path: string, sources: Readonly<Record<string, string>>): ModelCallSite {
  const keyPath = `${path}.api_key`;
  const variable = sources[keyPath];
  const keyFrom = variable
    ? `${variable} (${keyPath})`
    : entry.api_key !== ''
      ? `${keyPath} in kazma.yaml`
      : `no key (${keyPath} is empty)`;
  return { endpoint: maskText(endpointOf(entry)), keyFrom, nameKey: `${path}.name` };
}

/** A failed call's end, for its span: an HTTP status, or none (no answer). */
function failedCall(status: number | undefined): ModelCallEnd {
  return { ok: false, ...(status !== undefined && { status }) };
}

/** The tokens a reply's usage says (LangChain's `usage_metadata`); none when the provider said nothing. */
function tokensOf(message: AIMessage): TokenUse {
  const usage = message.usage_metadata;
  return usage ? { input: usage.input_tokens, output: usage.output_tokens } : {};
}

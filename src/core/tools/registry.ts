import { RefusedBeforeEffect } from '../effects/refused.ts';
import { KazmaError } from '../errors.ts';
import { maskText } from '../vault/mask.ts';
import { parseToolArgs } from './args.ts';
import type { ToolContext, ToolDefinition } from './define.ts';
import { toolSpecs, type ToolSpec } from './specs.ts';

/**
 * What happens to a tool call, decided in one place ({@link ToolRegistry.classify}):
 * `run` at once, `ask` a person first, `refuse` (nothing ran; the model may correct and retry),
 * or `invalid` arguments (the error tells the model what to fix).
 */
export type Classification =
  | { kind: 'run'; tool: ToolDefinition; args: Record<string, unknown> }
  | { kind: 'ask'; tool?: ToolDefinition; args: unknown; reason: string }
  | { kind: 'refuse'; reason: string }
  | { kind: 'invalid'; error: string };

/** Result of {@link ToolRegistry.execute}; `refused` marks a refusal before any effect. */
export type ExecuteResult = { ok: true; output: string } | { ok: false; error: string; refused?: boolean };

/** Two tools were registered under one name. */
export class DuplicateToolError extends KazmaError {
  constructor(name: string) {
    super('tool_duplicate', `a tool named "${name}" is already registered; tool names must be unique`);
  }
}

/**
 * Holds the tools the agent may call. Disabled tools (`tools.disabled` in kazma.yaml) behave as
 * unknown: not listed, not described to the model, and not executable.
 *
 * @example
 * const registry = new ToolRegistry({ disabled: config.tools.disabled });
 * for (const tool of builtinTools()) registry.register(tool);
 */
export class ToolRegistry {
  readonly #tools = new Map<string, ToolDefinition>();
  readonly #disabled: Set<string>;

  constructor(options: { disabled?: Iterable<string> } = {}) {
    this.#disabled = new Set(options.disabled ?? []);
  }

  /** Adds a tool; throws {@link DuplicateToolError} when the name is taken. */
  register(tool: ToolDefinition): this {
    if (this.#tools.has(tool.name)) throw new DuplicateToolError(tool.name);
    this.#tools.set(tool.name, tool);
    return this;
  }

  /** The enabled tool called `name`, or undefined when unknown or disabled. */
  get(name: string): ToolDefinition | undefined {
    return this.#disabled.has(name) ? undefined : this.#tools.get(name);
  }

  /** Enabled tools; with `includeDisabled`, every registered tool (for `/config tools`). */
  list(options: { includeDisabled?: boolean } = {}): ToolDefinition[] {
    const all = [...this.#tools.values()];
    return options.includeDisabled ? all : all.filter((tool) => !this.#disabled.has(tool.name));
  }

  /** Names switched off; a copy, change it with {@link setDisabled}. */
  get disabled(): ReadonlySet<string> {
    return new Set(this.#disabled);
  }

  /** Switches a tool off or on (the `/config tools` toggle). */
  setDisabled(name: string, disabled: boolean): void {
    if (disabled) this.#disabled.add(name);
    else this.#disabled.delete(name);
  }

  /** Enabled tools described for a chat model's `bindTools`. */
  toolSpecs(): ToolSpec[] {
    return toolSpecs(this.list());
  }

  /**
   * Decides what happens to a call. Order matters: unknown → ask; bad arguments → invalid;
   * precheck refusal → refuse (before any approval card exists); then the tier: `safe` runs,
   * `write`/`danger`/no tier asks.
   */
  async classify(name: string, rawArgs: unknown, ctx: ToolContext): Promise<Classification> {
    const tool = this.get(name);
    if (!tool) return { kind: 'ask', args: rawArgs, reason: `"${name}" is not a known tool, so a person must decide` };
    const parsed = parseToolArgs(tool, rawArgs);
    if (!parsed.ok) return { kind: 'invalid', error: parsed.error };
    const refusal = await precheck(tool, parsed.args, ctx);
    if (refusal) return { kind: 'refuse', reason: refusal };
    if (tool.tier === 'safe') return { kind: 'run', tool, args: parsed.args };
    const reason = tool.tier
      ? `"${name}" is a ${tool.tier} tool and needs approval`
      : `"${name}" has no tier, so it needs approval`;
    return { kind: 'ask', tool, args: parsed.args, reason };
  }

  /**
   * The single path that runs a tool. Validates again and prechecks again (an approval does not
   * make a refused call acceptable), runs it, and masks configured secrets out of the result.
   * Never throws for a tool's failure: errors come back as `{ ok: false }` for the model to read.
   */
  async execute(name: string, rawArgs: unknown, ctx: ToolContext): Promise<ExecuteResult> {
    const tool = this.get(name);
    if (!tool) return { ok: false, error: `unknown tool ${name}` };
    const parsed = parseToolArgs(tool, rawArgs);
    if (!parsed.ok) return { ok: false, error: parsed.error };
    const mask = (text: string): string => maskText(text, ctx.secrets);
    const refusal = await precheck(tool, parsed.args, ctx);
    if (refusal) return { ok: false, error: mask(`refused: ${refusal}`), refused: true };
    try {
      const output = await tool.run(parsed.args, ctx);
      return { ok: true, output: mask(stringify(output)) };
    } catch (error) {
      if (error instanceof RefusedBeforeEffect) {
        return { ok: false, error: mask(`refused: ${error.reason}`), refused: true };
      }
      const message = error instanceof Error ? error.message : String(error);
      return { ok: false, error: mask(`tool "${name}" failed: ${message}`) };
    }
  }
}

/** Runs a tool's precheck; returns the refusal reason, or undefined when the call may proceed. */
async function precheck(tool: ToolDefinition, args: Record<string, unknown>, ctx: ToolContext): Promise<string | undefined> {
  if (!tool.precheck) return undefined;
  try {
    await tool.precheck(args, ctx);
    return undefined;
  } catch (error) {
    if (error instanceof RefusedBeforeEffect) return error.reason;
    // A precheck is a safety gate: if it breaks, fail closed rather than let the call through.
    return `the safety check of "${tool.name}" failed: ${error instanceof Error ? error.message : String(error)}`;
  }
}

function stringify(output: unknown): string {
  if (typeof output === 'string') return output;
  if (output === undefined) return '';
  return JSON.stringify(output) ?? String(output);
}

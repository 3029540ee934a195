import { RefusedBeforeEffect } from '../effects/index.ts';
import { KazmaError } from '../errors.ts';
import { maskText } from '../secrets/index.ts';
import { parseToolArgs } from './args.ts';
import type { ToolContext, ToolDefinition } from './define.ts';
import { fenceOutside } from './fence.ts';
import { createGuardList, guardsOnly, type Authorization, type AuthorizeEffect, type Guard } from './guards/index.ts';
import { toolSpecs, type ToolSpec } from './specs.ts';
import { type ApprovedArgs, changedSinceApproval } from './approved-args.ts';
import type { ExecuteResult } from '../db/index.ts';

/**
 * What happens to a tool call, decided in one place ({@link ToolRegistry.classify}):
 * `run` at once, `ask` a person first, `refuse` (nothing ran; the model may correct and retry),
 * or `invalid` arguments (the error tells the model what to fix).
 */
export type Classification =
  | { kind: 'run'; tool: ToolDefinition; args: Record<string, unknown> }
  | { kind: 'ask'; tool?: ToolDefinition; args: unknown; reason: string; rewritten?: Record<string, unknown> }
  | { kind: 'refuse'; reason: string }
  | { kind: 'invalid'; error: string };

/** Result of {@link ToolRegistry.execute}; `refused` marks a refusal before any effect. */
export type { ExecuteResult };

/**
 * {@link ToolRegistry.execute} in two halves, for a caller that must write something between the
 * check and the act (the tools node: the effect receipt). `guard()` runs the guard list now and returns
 * the result to give the model when the call may not go ahead (unknown tool, invalid arguments, a
 * refusal), else undefined; `run()` acts, only after `guard()` let the call through, and only once.
 * The field names match `runWithJournal`'s options, so the pair can be spread into them.
 */
export interface PreparedCall {
  guard(): Promise<ExecuteResult | undefined>;
  run(): Promise<ExecuteResult>;
}

/** Options for {@link ToolRegistry}. */
export interface ToolRegistryOptions {
  /** Tool names switched off (`tools.disabled`). Default none. */
  disabled?: Iterable<string>;
  /** The checks before any effect, in order. Default {@link createGuardList}`()`: the tools' own prechecks. */
  guards?: readonly Guard[];
  /**
   * The one check before any effect (core/commitment's authorizeEffect, which runs `guards` first and
   * may also rewrite a call or ask a clarifying question). Default: the guard list alone.
   */
  authorize?: AuthorizeEffect;
}

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
  readonly #authorize: AuthorizeEffect;

  constructor(options: ToolRegistryOptions = {}) {
    this.#disabled = new Set(options.disabled ?? []);
    this.#authorize = options.authorize ?? guardsOnly(options.guards ?? createGuardList());
  }

  /** Adds a tool; throws {@link DuplicateToolError} when the name is taken. */
  register(tool: ToolDefinition): this {
    if (this.#tools.has(tool.name)) throw new DuplicateToolError(tool.name);
    this.#tools.set(tool.name, tool);
    return this;
  }

  /** Takes a tool away (an MCP server stopped); its on/off switch is kept for when it comes back. */
  unregister(name: string): boolean {
    return this.#tools.delete(name);
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
   * Decides what happens to a call. Order matters: switched off → refuse (no card: an operator turned it
   * off, and no person's approval turns it on); unknown → ask; bad arguments → invalid;
   * a refusal by authorize (the guards, the commitment check) → refuse, before any approval card
   * exists; a clarifying question → run (its card is the gate, and it is what runs); then the tier:
   * `safe` runs, `write`/`danger`/no tier asks, with rewritten arguments and their note on the card.
   */
  async classify(name: string, rawArgs: unknown, ctx: ToolContext): Promise<Classification> {
    if (this.#disabled.has(name) && this.#tools.has(name))
      return {
        kind: 'refuse',
        reason: `"${name}" is switched off here (an operator turned it off with /config tools toggle); do not call it`,
      };
    const tool = this.get(name);
    if (!tool) return { kind: 'ask', args: rawArgs, reason: `"${name}" is not a known tool, so a person must decide` };
    const parsed = parseToolArgs(tool, rawArgs);
    if (!parsed.ok) return { kind: 'invalid', error: parsed.error };
    const auth = await this.#authorize({ tool, args: parsed.args }, ctx);
    if (auth.kind === 'refuse') return { kind: 'refuse', reason: auth.reason };
    const args = auth.kind === 'rewrite' ? auth.args : parsed.args;
    if (tool.tier === 'safe' || auth.kind === 'clarify') return { kind: 'run', tool, args };
    const reason =
      tool.askReason ??
      (tool.tier
        ? `"${name}" is a ${tool.tier} tool and needs approval`
        : `"${name}" has no tier, so it needs approval`);
    if (auth.kind !== 'rewrite') return { kind: 'ask', tool, args, reason };
    return { kind: 'ask', tool, args, reason: `${reason}; ${auth.note}`, rewritten: auth.args };
  }

  /**
   * The single path that runs a tool: {@link prepare}, then its guard, then its run. Validates again
   * and runs the guards again (an approval does not make a refused call acceptable), runs the tool,
   * and masks configured secrets out of the result. Never throws for a tool's failure: errors come
   * back as `{ ok: false }` for the model to read.
   */
  async execute(name: string, rawArgs: unknown, ctx: ToolContext): Promise<ExecuteResult> {
    const call = this.prepare(name, rawArgs, ctx);
    return (await call.guard()) ?? call.run();
  }

  /**
   * {@link execute} split where the effect journal writes its receipt: the guards run in `guard()`,
   * before the receipt, so a refused call leaves none; the tool runs in `run()`, after it.
   *
   * @example
   * await runWithJournal({ journal, key, tool: name, args, effects, ...registry.prepare(name, args, ctx) });
   */
  prepare(name: string, rawArgs: unknown, ctx: ToolContext, approved?: ApprovedArgs): PreparedCall {
    const mask = (text: string): string => maskText(text, ctx.secrets);
    let passed: { tool: ToolDefinition; args: Record<string, unknown>; auth: Authorization } | undefined;
    return {
      guard: async () => {
        passed = undefined;
        const tool = this.get(name);
        if (!tool) return { ok: false, error: `unknown tool ${name}` };
        const parsed = parseToolArgs(tool, rawArgs);
        if (!parsed.ok) return { ok: false, error: parsed.error };
        const auth = await this.#authorize({ tool, args: parsed.args }, ctx);
        if (auth.kind === 'refuse') return { ok: false, error: mask(`refused: ${auth.reason}`), refused: true };
        const changed = approved && changedSinceApproval(approved, auth);
        if (changed) return { ok: false, error: mask(`refused: ${changed}`), refused: true };
        passed = { tool, args: auth.kind === 'rewrite' ? auth.args : parsed.args, auth };
        return undefined;
      },
      run: async () => {
        const call = passed;
        // Once per pass: a second run would act on a judgement made before the first one's effect.
        passed = undefined;
        if (!call)
          return {
            ok: false,
            error: `refused: the call to "${name}" did not pass its checks before running`,
            refused: true,
          };
        // A clarifying question runs instead of the tool: the person's answer carries the work on.
        if (call.auth.kind === 'clarify') {
          const asked = call.auth;
          return asked.ask(ctx).then(
            (output) => ({ ok: true as const, output: mask(output) }),
            (error: unknown) => ({
              ok: false as const,
              error: mask(
                `could not ask which target was meant: ${error instanceof Error ? error.message : String(error)}`,
              ),
            }),
          );
        }
        return act(call.tool, call.args, ctx, mask);
      },
    };
  }
}

/** Runs a tool that passed its guards; a tool's own late RefusedBeforeEffect is still a refusal. */
async function act(
  tool: ToolDefinition,
  args: Record<string, unknown>,
  ctx: ToolContext,
  mask: (text: string) => string,
): Promise<ExecuteResult> {
  try {
    const output = mask(stringify(await tool.run(args, ctx)));
    // The one place outside text is fenced: whichever tool fetched it, the model reads it as data.
    return { ok: true, output: tool.outside ? fenceOutside(output, tool.name) : output };
  } catch (error) {
    if (error instanceof RefusedBeforeEffect) {
      return { ok: false, error: mask(`refused: ${error.reason}`), refused: true };
    }
    const message = mask(error instanceof Error ? error.message : String(error));
    // A failure of an outside tool is outside text too: an MCP server's `isError` result, a page's error
    // body. Fenced like its output, on every path a result takes to the model.
    return {
      ok: false,
      error: `tool "${tool.name}" failed: ${tool.outside ? fenceOutside(message, tool.name) : message}`,
    };
  }
}

function stringify(output: unknown): string {
  if (typeof output === 'string') return output;
  if (output === undefined) return '';
  return JSON.stringify(output) ?? String(output);
}

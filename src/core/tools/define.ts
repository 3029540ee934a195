import type { z } from 'zod';
import { KazmaError } from '../errors.ts';

/**
 * How much a tool may do without a person saying yes: `safe` runs at once, `write` and `danger`
 * wait for approval. A tool without a tier is treated as needing approval.
 */
export type Tier = 'safe' | 'write' | 'danger';

/** What a tool sees of the world while it runs; built per turn by the caller, never from globals. */
export interface ToolContext {
  /** Absolute directory the file and shell tools are confined to. */
  workspace: string;
  /** The parent's environment; tools that spawn children build theirs from it with `childEnv` (an allowlist). */
  env: Readonly<Record<string, string | undefined>>;
  /** Aborts a running tool (turn cancelled, run supervisor gave up). */
  signal?: AbortSignal;
  /** Configured secret values; masked out of tool output before the model or a log sees it. */
  secrets?: readonly string[];
  /** The turn the call is part of: who asked, in which chat (or `thread:<id>`), on which thread. */
  turn?: { chat: string; requester: { platform: string; id: string; displayName?: string }; threadId: string };
}

/**
 * One tool, as the registry holds it. `run` and `precheck` are methods (not function-valued
 * properties) on purpose: method parameters are bivariant, so tools with different argument
 * types fit in one registry without casts.
 */
export interface ToolDefinition<S extends z.ZodObject = z.ZodObject> {
  /** Name the model calls; `[A-Za-z0-9_-]{1,64}` (the OpenAI function-name rule). */
  name: string;
  /** Told to the model; say what the tool does and its limits. */
  description: string;
  /** Arguments schema; validated before `precheck` and again before `run`. */
  input: S;
  /** Missing means "ask": an unclassified tool never runs silently. */
  tier?: Tier;
  /** Why it asks, for the approval card, when the tier alone does not say it (an MCP server's trust). */
  askReason?: string;
  /**
   * The JSON Schema told to the model, when `input` cannot express it (an MCP server's tool: its own
   * schema is passed on as it is, `input` then accepts any object and the server validates).
   */
  parameters?: Record<string, unknown>;
  /** True when `run` changes something outside the process (files, processes, remote state). */
  effects: boolean;
  /**
   * True when the output is outside text (a web page, search results, a file or a server's answer that
   * Kazma did not write): the registry fences it as data, not instructions. Every tool says true or
   * false; tests/tools/fence.test.ts fails for a registered tool that says neither.
   */
  outside?: boolean;
  /** The URLs a call will connect to, for the `egress` guard (web tools); checked before any card. */
  egress?(args: z.output<S>): string[];
  /** The setting keys a call would change (`access.users`, …); the commitment check refuses protected ones. */
  settings?(args: z.output<S>): string[];
  /** Does the work. A string is passed to the model as is; anything else is JSON-encoded. */
  run(args: z.output<S>, ctx: ToolContext): Promise<unknown>;
  /**
   * Rewrites a call's arguments before any card and again before the effect (a date anchored to memory):
   * `note` says what changed and is shown on the card; undefined leaves them as they are. Throw
   * `RefusedBeforeEffect` to refuse (a question for the person). Must not change anything.
   */
  resolve?(args: z.output<S>, ctx: ToolContext): Promise<{ args: z.output<S>; note: string } | undefined>;
  /**
   * Cheap check before approval is even asked; throw `RefusedBeforeEffect` to refuse the call.
   * Must not change anything.
   */
  precheck?(args: z.output<S>, ctx: ToolContext): void | Promise<void>;
}

/** A tool definition was malformed (bad name, non-object schema); a programming error, caught at start. */
export class ToolDefinitionError extends KazmaError {
  constructor(message: string) {
    super('tool_definition_invalid', message);
  }
}

const NAME_RULE = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Declares a tool with its argument types inferred from `input`.
 *
 * @example
 * const echo = defineTool({
 *   name: 'echo', description: 'Repeats text.', tier: 'safe', effects: false,
 *   input: z.object({ text: z.string() }),
 *   run: async ({ text }) => text,
 * });
 */
export function defineTool<S extends z.ZodObject>(definition: ToolDefinition<S>): ToolDefinition<S> {
  if (!NAME_RULE.test(definition.name)) {
    throw new ToolDefinitionError(`tool name "${definition.name}" is not valid: use 1-64 letters, digits, "_" or "-"`);
  }
  return Object.freeze({ ...definition });
}

import { RefusedBeforeEffect } from '../../effects/index.ts';
import type { ToolContext } from '../define.ts';
import type { Guard, GuardCall } from './guard.ts';
import { firstRefusal } from './list.ts';

/**
 * What the last check before an effect decides about a call (core/commitment's authorizeEffect):
 * - `allow`: go ahead as asked;
 * - `rewrite`: go ahead with `args` instead (an alias resolved); `note` is added to the approval card;
 * - `clarify`: do not guess: `ask` posts a question to people (a clarify card) instead of running the
 *   tool, and its answer carries the work on; the question is the gate, so no approval card is shown;
 * - `refuse`: nothing runs; `reason` goes to the model.
 */
export type Authorization =
  | { kind: 'allow' }
  | { kind: 'rewrite'; args: Record<string, unknown>; note: string }
  | { kind: 'clarify'; ask(ctx: ToolContext): Promise<string> }
  | { kind: 'refuse'; reason: string };

/** The one function every call passes before an approval card and again before its effect. Must change nothing. */
export type AuthorizeEffect = (call: GuardCall, ctx: ToolContext) => Promise<Authorization>;

/** An {@link AuthorizeEffect} that is the guard list alone: allow, or refuse with the first refusal. */
export function guardsOnly(guards: readonly Guard[]): AuthorizeEffect {
  return async (call, ctx) => {
    const reason = await firstRefusal(guards, call, ctx);
    return reason === undefined ? resolveCall(call, ctx) : { kind: 'refuse', reason };
  };
}

/**
 * The tool's own rewrite of its arguments (`ToolDefinition.resolve`), as an authorization: allow (no
 * rewrite), rewrite, or refuse. Fails closed: a resolve that throws refuses the call.
 */
export async function resolveCall(call: GuardCall, ctx: ToolContext): Promise<Authorization> {
  if (!call.tool.resolve) return { kind: 'allow' };
  try {
    const resolved = await call.tool.resolve(call.args, ctx);
    return resolved ? { kind: 'rewrite', args: resolved.args, note: resolved.note } : { kind: 'allow' };
  } catch (error) {
    if (error instanceof RefusedBeforeEffect) return { kind: 'refuse', reason: error.reason };
    const message = error instanceof Error ? error.message : String(error);
    return { kind: 'refuse', reason: `the arguments of "${call.tool.name}" could not be resolved: ${message}` };
  }
}

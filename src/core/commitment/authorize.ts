import { firstRefusal, resolveCall, type AuthorizeEffect, type Guard } from '../tools/index.ts';
import type { Clarifier } from './clarify.ts';
import { SEND_FILE } from './send-file.ts';
import { SEND_MESSAGE } from './send-message.ts';
import { decideTarget, type OutboundConfig } from './targets.ts';

/** Options for {@link createAuthorizeEffect}. */
export interface AuthorizeOptions {
  /** The ordered guard list (policy → commitment → egress). */
  guards: readonly Guard[];
  outbound: OutboundConfig;
  clarifier: Clarifier;
}

/**
 * THE check before any effect, `authorizeEffect(call, context)`: the ordered guard list first (the
 * tool's own policy, the commitment guard — protected settings, catastrophic shell — and the egress
 * guard), then the commitment decisions a guard cannot make: a `send_message` alias is rewritten to
 * its chat (the approval card says so), a target that is not allowed becomes a clarify card, and an
 * unreadable one is refused; another tool's own `resolve` rewrites its arguments (a date anchored to
 * memory: schedule_reminder) or refuses with a question. Runs before an approval card exists and again
 * right before the effect; it changes nothing itself (a clarify card is posted only when the call runs).
 */
export function createAuthorizeEffect(options: AuthorizeOptions): AuthorizeEffect {
  return async (call, ctx) => {
    const reason = await firstRefusal(options.guards, call, ctx);
    if (reason !== undefined) return { kind: 'refuse', reason };
    // The tool's own rewrite: a date anchored to memory (its note is on the card), or a question instead.
    if (call.tool.name !== SEND_MESSAGE && call.tool.name !== SEND_FILE) return resolveCall(call, ctx);
    const { to, text, caption, path } = call.args as { to?: string; text?: string; caption?: string; path?: string };
    if (to === undefined) return { kind: 'allow' }; // send_file to the chat it was asked in
    const decision = decideTarget(to, options.outbound);
    if (decision.kind === 'refuse') return decision;
    if (decision.kind === 'clarify') {
      const about = call.tool.name === SEND_FILE ? { text: caption ?? '', path } : { text: text ?? '' };
      return {
        kind: 'clarify',
        ask: (runCtx) => options.clarifier.ask({ to, ...about, known: decision.known }, runCtx),
      };
    }
    if (decision.chat === to) return { kind: 'allow' };
    return { kind: 'rewrite', args: { ...call.args, to: decision.chat }, note: `"${to}" is ${decision.chat}` };
  };
}

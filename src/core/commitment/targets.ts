import { isChatRef, type ChatRef } from '../surface/index.ts';

/** `outbound` as the schema reads it. */
export interface OutboundConfig {
  targets: Readonly<Record<string, string>>;
  allow_targets: readonly string[];
}

/** One known target, as a clarify card offers it. */
export interface KnownTarget {
  chat: ChatRef;
  label: string;
}

/** Where a `send_message` may go. */
export type TargetDecision =
  | { kind: 'allow'; chat: ChatRef }
  | { kind: 'clarify'; known: KnownTarget[] }
  | { kind: 'refuse'; reason: string };

/**
 * Decides a `send_message` target. An alias (`outbound.targets`) or a ChatRef names a chat; with
 * `outbound.allow_targets` set, only those chats may be posted to, and anything else — an unknown
 * alias, a near miss, another chat — is never guessed: the decision is to ask which was meant.
 *
 * @example
 * decideTarget('ops', { targets: { ops: 'slack:C1' }, allow_targets: ['ops'] }) // { kind: 'allow', chat: 'slack:C1' }
 * decideTarget('opz', { targets: { ops: 'slack:C1' }, allow_targets: ['ops'] }) // { kind: 'clarify', known: [ops] }
 */
export function decideTarget(to: string, outbound: OutboundConfig): TargetDecision {
  const named = resolve(to.trim(), outbound);
  const known = knownTargets(outbound);
  if (known.length > 0) {
    return named && known.some((k) => k.chat === named) ? { kind: 'allow', chat: named } : { kind: 'clarify', known };
  }
  if (named) return { kind: 'allow', chat: named };
  const aliases = Object.keys(outbound.targets);
  return {
    kind: 'refuse',
    reason:
      `"${to}" is neither a chat (platform:chat, e.g. "slack:C0123") nor a configured ` +
      `alias${aliases.length ? ` (${aliases.join(', ')})` : ''}`,
  };
}

/** The chats `outbound.allow_targets` names, labelled by their alias where they have one. */
export function knownTargets(outbound: OutboundConfig): KnownTarget[] {
  const seen = new Map<ChatRef, KnownTarget>();
  for (const entry of outbound.allow_targets) {
    const chat = resolve(entry, outbound);
    if (!chat || seen.has(chat)) continue;
    const alias = Object.entries(outbound.targets).find(([, ref]) => ref === chat)?.[0];
    seen.set(chat, { chat, label: alias ? `${alias} (${chat})` : chat });
  }
  return [...seen.values()];
}

function resolve(name: string, outbound: OutboundConfig): ChatRef | undefined {
  const aliased = Object.hasOwn(outbound.targets, name) ? outbound.targets[name] : undefined;
  if (aliased && isChatRef(aliased)) return aliased;
  return isChatRef(name) ? name : undefined;
}

// Which approval policy a call is decided under (approvals.policies, then approvals.require), and who may
// decide under it. The policy is resolved once, when the question is asked, and kept with the gate.
import type { KazmaConfig } from '../config/index.ts';
import type { GatePolicy, StoredActor } from '../db/index.ts';
import type { DecisionKind } from '../decisions/index.ts';
import type { Actor } from '../surface/index.ts';
import type { Gate } from './port.ts';

/** The call a policy is matched against: what the model asked for, as the card shows it. */
export interface PolicyCall {
  tool: string;
  args: unknown;
  tier: string;
}

/** The policies of one configuration, compiled once. */
export class ApprovalPolicies {
  readonly #rules: Array<{ test: (call: PolicyCall) => boolean; policy: GatePolicy }>;

  constructor(approvals: KazmaConfig['approvals']) {
    const approvers = approvals.approvers;
    const explicit = approvals.policies.map((p, i) => {
      const args = Object.entries(p.match.args ?? {}).map(([key, source]) => [key, new RegExp(source, 'u')] as const);
      const tiers = p.match.tier === undefined ? undefined : [p.match.tier].flat();
      return {
        test: (call: PolicyCall) =>
          (!p.match.tools || p.match.tools.includes(call.tool)) &&
          (!tiers || tiers.includes(call.tier)) &&
          args.every(([key, re]) => {
            const value = argument(call.args, key);
            return value !== undefined && re.test(value);
          }),
        policy: {
          name: p.name ?? `policies[${i}]`,
          approvals: p.approvals,
          approvers: p.approvers ?? approvers,
          requesterMayApprove: p.requester_may_approve ?? approvals.requester_may_approve,
          denyReason: p.deny_reason,
          ...(p.escalate_after !== undefined && { escalateAfterMs: p.escalate_after }),
          escalateTo: p.escalate_to,
        } satisfies GatePolicy,
      };
    });
    const shorthand = Object.entries(approvals.require).map(([tool, n]) => ({
      test: (call: PolicyCall) => call.tool === tool,
      policy: {
        name: `require.${tool}`,
        approvals: n,
        approvers,
        requesterMayApprove: approvals.requester_may_approve,
        denyReason: 'optional',
        escalateTo: [],
      } satisfies GatePolicy,
    }));
    this.#rules = [...explicit, ...shorthand];
  }

  /** The first policy that matches the call; undefined: none (one approval, under the access rules). */
  for(call: PolicyCall): GatePolicy | undefined {
    return this.#rules.find((rule) => rule.test(call))?.policy;
  }

  /** How many approvals a call needs (1 when no policy matches). */
  required(call: PolicyCall): number {
    return this.for(call)?.approvals ?? 1;
  }
}

/** An argument as a pattern reads it: text as it is, anything else as its JSON; absent: undefined. */
function argument(args: unknown, key: string): string | undefined {
  if (args === null || typeof args !== 'object' || !Object.hasOwn(args, key)) return undefined;
  const value = (args as Record<string, unknown>)[key];
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Why `actor` may not decide under `policy` a call `requester` asked for, or undefined when they may: an operator,
 * among the policy's approvers (none listed: any operator), and not the requester unless the policy lets them.
 */
export function policyRefusal(
  policy: GatePolicy,
  actor: Actor,
  requester: StoredActor | undefined,
  operatorName: (actor: Actor) => string | undefined,
): string | undefined {
  const name = operatorName(actor);
  if (!name) return 'only operators may approve tool calls';
  if (policy.approvers.length > 0 && !policy.approvers.includes(name))
    return `${name} is not among the approvers of the policy ${policy.name}`;
  const same =
    requester &&
    ((requester.platform === actor.platform && requester.id === actor.id) ||
      (requester.operator ?? operatorName(requester)) === name);
  if (!policy.requesterMayApprove && same)
    return `under the policy ${policy.name} the requester may not approve: another operator must decide`;
  return undefined;
}

/**
 * What a Deny without a reason is asked when the gate's policy requires one (`deny_reason: required`), the gate is
 * open and `actor` may decide it; undefined otherwise (the Deny goes ahead, or is refused as any decision would be).
 */
export function reasonQuestion(
  gate: Gate,
  kind: Pick<DecisionKind<unknown, string, Gate>, 'isOpen' | 'refusal'>,
  actor: Actor,
): string | undefined {
  if (gate.policy?.denyReason !== 'required' || !kind.isOpen(gate) || kind.refusal(gate, actor)) return undefined;
  return (
    `A Deny of ${gate.call.tool} needs a reason (policy ${gate.policy.name}): reply with it, ` +
    `or send /deny ${gate.gateId} <reason>.`
  );
}

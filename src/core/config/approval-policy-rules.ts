// approvals.policies and approvals.require across keys: every approver an operator, a quorum the approvers can
// reach, escalation to someone who exists. Each issue names the key and the fix.
import type { KazmaConfig } from './schema.ts';

const CHAT_REF = /^[a-z]+:[^:\s]+(:[^:\s]+)?$/;

/** The issues of approvals.policies and approvals.require. */
export function approvalPolicyIssues(config: KazmaConfig): string[] {
  const issues: string[] = [];
  const operators = config.access.operators.map((o) => o.name);
  const known = new Set(operators);
  const fallback = config.approvals.approvers.length > 0 ? config.approvals.approvers : operators;
  const quorum = (key: string, wanted: number, approvers: readonly string[], from: string) => {
    if (wanted > 1 && wanted > approvers.length)
      issues.push(
        `${key}: ${wanted} approvals are asked but ${from} names ${approvers.length} ` +
          `(${approvers.join(', ') || 'nobody'}); add approvers or ask for fewer`,
      );
  };
  config.approvals.policies.forEach((policy, i) => {
    const at = `approvals.policies[${i}]`;
    policy.approvers?.forEach((name, j) => {
      if (!known.has(name)) issues.push(`${at}.approvers[${j}]: "${name}" is not in access.operators`);
    });
    const approvers = policy.approvers ?? fallback;
    const from = policy.approvers
      ? `${at}.approvers`
      : config.approvals.approvers.length > 0
        ? 'approvals.approvers'
        : 'access.operators';
    quorum(`${at}.approvals`, policy.approvals, approvers, from);
    policy.escalate_to.forEach((target, j) => {
      if (!known.has(target) && !CHAT_REF.test(target))
        issues.push(`${at}.escalate_to[${j}]: "${target}" is neither in access.operators nor a chat (slack:C0CTO)`);
    });
    if (policy.escalate_after !== undefined && policy.escalate_to.length === 0)
      issues.push(`${at}.escalate_to: escalate_after is set but nobody to escalate to; name operators or chats`);
  });
  const from = config.approvals.approvers.length > 0 ? 'approvals.approvers' : 'access.operators';
  for (const [tool, wanted] of Object.entries(config.approvals.require))
    quorum(`approvals.require.${tool}`, wanted, fallback, from);
  return issues;
}

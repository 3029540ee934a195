// Which policy a call is decided under (first match; approvals.require after the list) and who may decide under it.
import { describe, expect, it } from 'vitest';
import { ApprovalPolicies, policyRefusal } from '../../../src/core/approvals/policy.ts';
import { parseConfig } from '../../../src/core/config/index.ts';

const { config } = parseConfig(
  `
access:
  operators: [ { name: maya, telegram: 42 }, { name: omar, slack: U0OMAR }, { name: lea, telegram: 44 } ]
approvals:
  approvers: [maya, omar, lea]
  policies:
    - name: production
      match: { tools: [shell], args: { command: "^(git push|kubectl|terraform) " } }
      approvals: 2
      approvers: [maya, omar]
      requester_may_approve: false
    - name: writes
      match: { tier: [write, danger] }
    - name: pinned
      match: { tools: [launch], args: { count: "^[0-9]+$" } }
  require: { shell: 3, deploy: 2 }
`,
  { env: {}, baseDir: '/tmp' },
);
const policies = new ApprovalPolicies(config.approvals);
const operatorName = (a: { platform: string; id: string }) =>
  (({ 'telegram:42': 'maya', 'slack:U0OMAR': 'omar', 'telegram:44': 'lea' }) as Record<string, string>)[
    `${a.platform}:${a.id}`
  ];

describe('approval policies: matching', () => {
  it.each([
    [{ tool: 'shell', args: { command: 'git push origin main' }, tier: 'danger' }, 'production'],
    [{ tool: 'shell', args: { command: 'echo git push ' }, tier: 'danger' }, 'writes'],
    [{ tool: 'shell', args: { command: 'ls' }, tier: 'read' }, 'require.shell'],
    [{ tool: 'shell', args: {}, tier: 'read' }, 'require.shell'],
    [{ tool: 'launch', args: { count: 3 }, tier: 'read' }, 'pinned'],
    [{ tool: 'launch', args: { count: '3; rm' }, tier: 'read' }, undefined],
    [{ tool: 'deploy', args: null, tier: 'read' }, 'require.deploy'],
    [{ tool: 'read_file', args: { path: 'x' }, tier: 'read' }, undefined],
  ])('%j → %s', (call, name) => {
    expect(policies.for(call)?.name).toBe(name);
  });

  it('a policy keeps what it was given and falls back to approvals.* for the rest', () => {
    expect(policies.for({ tool: 'write_file', args: {}, tier: 'write' })).toEqual({
      name: 'writes',
      approvals: 1,
      approvers: ['maya', 'omar', 'lea'],
      requesterMayApprove: true,
      denyReason: 'optional',
      escalateTo: [],
    });
    expect(policies.required({ tool: 'deploy', args: {}, tier: 'none' })).toBe(2);
    expect(policies.required({ tool: 'read_file', args: {}, tier: 'read' })).toBe(1);
  });

  it('who may decide: approvers of the policy, and the requester only when it lets them', () => {
    const production = policies.for({ tool: 'shell', args: { command: 'kubectl apply' }, tier: 'danger' })!;
    const maya = { platform: 'telegram', id: '42' };
    const mayaOnSlack = { platform: 'slack', id: 'U0MAYA', operator: 'maya' };
    expect(policyRefusal(production, { platform: 'telegram', id: '44' }, maya, operatorName)).toBe(
      'lea is not among the approvers of the policy production',
    );
    expect(policyRefusal(production, { platform: 'telegram', id: '555' }, maya, operatorName)).toBe(
      'only operators may approve tool calls',
    );
    expect(policyRefusal(production, maya, mayaOnSlack, operatorName)).toBe(
      'under the policy production the requester may not approve: another operator must decide',
    );
    expect(policyRefusal(production, { platform: 'slack', id: 'U0OMAR' }, maya, operatorName)).toBeUndefined();
  });
});

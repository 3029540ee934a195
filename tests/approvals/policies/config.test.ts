// approvals.policies and approvals.require: read from kazma.yaml, and every mistake named by its key and reason.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/core/config/index.ts';

const OPERATORS = `
access:
  operators:
    - { name: maya, telegram: 42 }
    - { name: omar, slack: U0OMAR }
    - { name: lea, discord: "123" }
    - { name: cto, telegram: 99 }
`;

const parse = (yaml: string) => parseConfig(OPERATORS + yaml, { env: {}, baseDir: '/tmp' });
const issuesOf = (yaml: string): string[] => {
  try {
    parse(yaml);
  } catch (error) {
    return (error as { issues: string[] }).issues;
  }
  return [];
};

describe('approvals.policies', () => {
  it('reads the example of the issue: the first policy with its defaults filled in', () => {
    const { config } = parse(`
approvals:
  policies:
    - match: { tools: [shell], args: { command: "^(git push|kubectl|terraform) " } }
      approvals: 2
      approvers: [maya, omar, lea]
      escalate_after: 10m
      escalate_to: [cto]
      deny_reason: required
    - match: { tier: write }
  require: { deploy: 2 }
`);
    expect(config.approvals.policies[0]).toEqual({
      match: { tools: ['shell'], args: { command: '^(git push|kubectl|terraform) ' } },
      approvals: 2,
      approvers: ['maya', 'omar', 'lea'],
      escalate_after: 600_000,
      escalate_to: ['cto'],
      deny_reason: 'required',
    });
    expect(config.approvals.policies[1]).toEqual({
      match: { tier: 'write' },
      approvals: 1,
      escalate_to: [],
      deny_reason: 'optional',
    });
    expect(config.approvals.require).toEqual({ deploy: 2 });
  });

  it('names the key of a pattern that does not compile, an unknown approver and an unreachable quorum', () => {
    const issues = issuesOf(`
approvals:
  policies:
    - match: { args: { command: "^(git push" } }
`);
    expect(issues).toEqual([
      expect.stringMatching(/^approvals\.policies\[0\]\.match\.args\.command: the pattern does not compile: /),
    ]);
    expect(
      issuesOf(`
approvals:
  policies:
    - { approvals: 2, approvers: [maya, zed] }
    - { approvals: 5 }
    - { escalate_after: 10m, escalate_to: [nobody] }
  require: { shell: 3 }
  approvers: [maya, omar]
`),
    ).toEqual([
      'approvals.policies[0].approvers[1]: "zed" is not in access.operators',
      'approvals.policies[1].approvals: 5 approvals are asked but approvals.approvers names 2 (maya, omar); ' +
        'add approvers or ask for fewer',
      'approvals.policies[2].escalate_to[0]: "nobody" is neither in access.operators nor a chat (slack:C0CTO)',
      'approvals.require.shell: 3 approvals are asked but approvals.approvers names 2 (maya, omar); ' +
        'add approvers or ask for fewer',
    ]);
  });

  it('refuses unknown keys and bad values inside a policy, by key', () => {
    expect(issuesOf('approvals: { policies: [ { match: { tool: [shell] } } ] }')).toEqual([
      expect.stringMatching(/^approvals\.policies\[0\]\.match\.tool: unknown key \(did you mean "tools"\?\)$/),
    ]);
    expect(issuesOf('approvals: { policies: [ { approvals: 0 } ] }')[0]).toMatch(
      /^approvals\.policies\[0\]\.approvals: /,
    );
    expect(issuesOf('approvals: { policies: [ { deny_reason: always } ] }')[0]).toMatch(
      /^approvals\.policies\[0\]\.deny_reason: /,
    );
  });
});

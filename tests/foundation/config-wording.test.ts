// A bad kazma.yaml is explained in the project's words — what was expected, with an example, and what
// the file holds — never in zod's raw wording ("Invalid input: expected array, received string").
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/core/config/index.ts';

function problems(yaml: string): string[] {
  try {
    parseConfig(yaml, { env: {}, baseDir: '/tmp' });
  } catch (error) {
    return (error as Error).message
      .split('\n')
      .slice(1)
      .map((l) => l.trim());
  }
  throw new Error('the configuration was accepted');
}

describe('configuration errors in plain words', () => {
  it.each([
    ['tools: { disabled: shell }', 'tools.disabled: expected a list, e.g. [first, second], got "shell"'],
    [
      'approvals: { requester_may_approve: maybe }',
      'approvals.requester_may_approve: expected true or false, got "maybe"',
    ],
    ['model: { max_retries: 2.5 }', 'model.max_retries: expected a whole number, got 2.5'],
    ['telegram: { mode: hook }', 'telegram.mode: expected one of polling, webhook; got "hook"'],
    ['jobs: { concurrency: { swarm: -1 } }', 'jobs.concurrency.swarm: expected 0 or more, got -1'],
    ['jobs: { lease_ttl: 500ms }', 'jobs.lease_ttl: expected 2s or longer, got "500ms"'],
    ['access: { operators: [ { telegram: 1 } ] }', 'access.operators[0].name: required, but missing'],
    ['access: { operators: [ { name: "" } ] }', 'access.operators[0].name: must not be empty'],
    ['telegram: { api_root: notaurl }', 'telegram.api_root: expected a URL, e.g. https://example.com, got "notaurl"'],
    ['http: { port: abc }', 'http.port: expected a port number (0-65535)'],
  ])('%s', (yaml, line) => {
    const lines = problems(yaml);
    expect(lines).toContain(line);
    for (const l of lines) expect(l).not.toMatch(/Invalid (input|option)|Too (small|big)|received/);
  });
});

describe('renamed keys', () => {
  it.each([
    ['approvals: { stale_after: 20s }', 'approvals', 'approvals.stale_after is renamed approvals.lease_ttl'],
    ['turns: { stale_after: 20s }', 'turns', 'turns.stale_after is renamed turns.lease_ttl'],
    ['jobs: { stalled_after: 20s }', 'jobs', 'jobs.stalled_after is renamed jobs.lease_ttl'],
  ] as const)('%s still works for a release, with a warning naming the new key', (yaml, section, warning) => {
    const loaded = parseConfig(yaml, { env: {}, baseDir: '/tmp' });
    expect(loaded.config[section].lease_ttl).toBe(20_000);
    expect(loaded.warnings).toEqual([expect.stringContaining(warning)]);
  });

  it('the new key has no warning; both at once is an error naming the one to keep', () => {
    expect(parseConfig('turns: { lease_ttl: 20s }', { env: {}, baseDir: '/tmp' }).warnings).toBeUndefined();
    expect(problems('turns: { stale_after: 20s, lease_ttl: 30s }')).toEqual([
      'turns.stale_after: renamed turns.lease_ttl, which is set too; keep only turns.lease_ttl',
    ]);
  });
});

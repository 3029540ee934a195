// Access control as kazma.yaml states it: operators by per-platform id, users, chats, the console.
import { describe, expect, it } from 'vitest';
import { AccessPolicy, LOCAL_OPERATOR } from '../../src/core/chat/index.ts';
import { configSchema } from '../../src/core/config/index.ts';

const policy = (yaml: Record<string, unknown>) => {
  const config = configSchema.parse(yaml);
  return new AccessPolicy({ access: config.access, approvals: config.approvals });
};

const maya = { name: 'maya', telegram: '123', slack: 'U0123ABC', console: 'maya' };
const tom = { name: 'tom', discord: '987' };

describe('AccessPolicy', () => {
  it('knows operators by their platform id, never by display name', () => {
    const p = policy({ access: { operators: [maya, tom] } });
    expect(p.check({ platform: 'telegram', id: '123' }, 'telegram:123')).toMatchObject({ ok: true, role: 'operator' });
    expect(p.check({ platform: 'discord', id: '987' }, 'discord:5')).toMatchObject({ ok: true, role: 'operator' });
    expect(p.check({ platform: 'slack', id: 'maya', displayName: 'maya' }, 'slack:C1').ok).toBe(false);
    expect(p.check({ platform: 'discord', id: '123' }, 'discord:5').ok).toBe(false);
  });

  it('lets listed users and members of listed chats talk, and says how to add a stranger', () => {
    const p = policy({ access: { operators: [maya], users: ['telegram:555'], chats: ['slack:C0123'] } });
    expect(p.check({ platform: 'telegram', id: '555' }, 'telegram:555')).toEqual({ ok: true, role: 'user' });
    expect(p.check({ platform: 'slack', id: 'U9' }, 'slack:C0123:1712.01')).toEqual({ ok: true, role: 'chat_member' });
    const refused = p.check({ platform: 'telegram', id: '777' }, 'telegram:777');
    expect(refused).toEqual({ ok: false, reason: expect.stringContaining('"telegram:777" to access.users') });
  });

  it('makes the console the operator named by `console`, else the first operator, else a local one', () => {
    expect(policy({ access: { operators: [tom, maya] } }).consoleActor()).toEqual({
      platform: 'console',
      id: 'maya',
      displayName: 'maya',
    });
    expect(policy({ access: { operators: [tom] } }).consoleActor()).toEqual({
      platform: 'console',
      id: 'tom',
      displayName: 'tom',
    });
    const local = policy({});
    expect(local.consoleActor()).toEqual({ platform: 'console', id: 'local', displayName: 'local' });
    expect(local.operatorOf(local.consoleActor())).toBe(LOCAL_OPERATOR);
    expect(local.check({ platform: 'console', id: 'someone-else' }, 'console:local').ok).toBe(false);
  });

  it('lets operators approve, narrowed by approvers and requester_may_approve', () => {
    const user = { platform: 'telegram', id: '555' };
    const mayaTg = { platform: 'telegram', id: '123' };
    const mayaSlack = { platform: 'slack', id: 'U0123ABC' };
    const tomDc = { platform: 'discord', id: '987' };
    const open = policy({ access: { operators: [maya, tom], users: ['telegram:555'] } });
    expect(open.approvalRefusal(user, user)).toBe('only operators may approve tool calls');
    expect(open.approvalRefusal(mayaTg, user)).toBeUndefined();
    expect(open.approvalRefusal(mayaTg, mayaSlack)).toBeUndefined();

    const strict = policy({
      access: { operators: [maya, tom] },
      approvals: { approvers: ['tom'], requester_may_approve: false },
    });
    expect(strict.approvalRefusal(mayaTg, user)).toBe('maya is not in approvals.approvers');
    expect(strict.approvalRefusal(tomDc, user)).toBeUndefined();
    const selfApproval = policy({ access: { operators: [maya, tom] }, approvals: { requester_may_approve: false } });
    // The same person on another platform is still the requester.
    expect(selfApproval.approvalRefusal(mayaSlack, mayaTg)).toMatch(/requester_may_approve is false/);
    expect(selfApproval.approvalRefusal(tomDc, mayaTg)).toBeUndefined();
  });
});

describe('AccessPolicy with operator claims (kazma init codes)', () => {
  const claimed = new Map([
    ['telegram:42', 'maya'],
    ['discord:9', 'gone'],
  ]);
  const withClaims = () => {
    const config = configSchema.parse({ access: { operators: [{ name: 'maya' }] } });
    return new AccessPolicy({
      access: config.access,
      approvals: config.approvals,
      claimed: { operatorOf: (user) => claimed.get(user) },
    });
  };

  it('makes a claimed id the named operator, with that id', () => {
    const p = withClaims();
    expect(p.check({ platform: 'telegram', id: '42' }, 'telegram:42')).toMatchObject({
      ok: true,
      role: 'operator',
      operator: { name: 'maya', telegram: '42' },
    });
    expect(p.approvalRefusal({ platform: 'telegram', id: '42' }, undefined)).toBeUndefined();
  });

  it('ignores a claim whose operator is no longer in access.operators, and an unclaimed id', () => {
    const p = withClaims();
    expect(p.check({ platform: 'discord', id: '9' }, 'discord:9').ok).toBe(false);
    expect(p.check({ platform: 'telegram', id: '43' }, 'telegram:43').ok).toBe(false);
  });
});

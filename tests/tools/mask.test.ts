import { describe, expect, it } from 'vitest';
import { MASK, maskSecrets, maskText } from '../../src/core/secrets/mask.ts';

describe('maskSecrets', () => {
  it('masks values by key name, recursively through objects and arrays', () => {
    const input = {
      user: 'maya',
      api_key: 'sk-1',
      nested: { Authorization: 'Bearer abc', cookie: 'sid=1', list: [{ password: 'p', note: 'fine' }] },
      telegram: { token: '123:abc', webhookSecret: 'w', apiKey: 'k', SMTP_PASS: 'x' },
      max_tokens: 512,
      unset_token: '',
    };
    expect(maskSecrets(input)).toEqual({
      user: 'maya',
      api_key: MASK,
      nested: { Authorization: MASK, cookie: MASK, list: [{ password: MASK, note: 'fine' }] },
      telegram: { token: MASK, webhookSecret: MASK, apiKey: MASK, SMTP_PASS: MASK },
      max_tokens: 512,
      unset_token: '',
    });
    expect(input.api_key).toBe('sk-1'); // the original is untouched
  });

  it('masks the password inside a URL, keeping the rest readable', () => {
    expect(maskText('connect postgres://kazma:s3cr3t@db:5432/app now')).toBe(
      `connect postgres://kazma:${MASK}@db:5432/app now`,
    );
    expect(maskSecrets({ url: 'redis://:pw@127.0.0.1:6379' })).toEqual({ url: `redis://:${MASK}@127.0.0.1:6379` });
    expect(maskText('https://example.com/a:b@c')).toBe('https://example.com/a:b@c');
  });

  it('masks configured secret values wherever they occur in text', () => {
    const secrets = ['tg-123456:ABCDEF', 'sk-live-abcdef'];
    const out = maskSecrets({ args: { command: 'curl -H "x: sk-live-abcdef" /bot tg-123456:ABCDEF/x' } }, { secrets });
    expect(out).toEqual({ args: { command: `curl -H "x: ${MASK}" /bot ${MASK}/x` } });
  });

  it('ignores secrets too short to mask safely, and masks bearer tokens in text', () => {
    expect(maskText('a cat sat', ['a'])).toBe('a cat sat');
    expect(maskText('Authorization: Bearer abcdefgh12345')).toBe(`Authorization: Bearer ${MASK}`);
  });

  it('survives cycles and leaves non-plain objects alone', () => {
    const when = new Date(0);
    const cyclic: Record<string, unknown> = { when, password: 'p' };
    cyclic.self = cyclic;
    const out = maskSecrets(cyclic) as Record<string, unknown>;
    expect(out.password).toBe(MASK);
    expect(out.self).toBe(out);
    expect(out.when).toBe(when);
  });
});

// Masking on a card hides secrets, never what a call acts on: a field is not hidden for its name
// (`secret_name: prod-db`, `token_id`), nor the word after `Bearer`, but a configured token and keys
// known by their form are, wherever they appear. Logs still hide by name as well.
import { describe, expect, it } from 'vitest';
import { argsPreview } from '../../src/core/approvals/card.ts';
import { maskSecrets } from '../../src/core/secrets/index.ts';

const CONFIGURED = 'cfg-telegram-token-0123456789';
const PEM = '-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----';

describe('a card masks only what is a secret', () => {
  const args = {
    secret_name: 'prod-db',
    token_id: 'tok_42',
    header: 'Authorization: Bearer deploy-bot-user',
    password_hint: 'the usual one',
    api_key: CONFIGURED,
    openai: 'sk-proj-abcdefghijklmnopqrstuvwxyz012345',
    slack: 'xoxb-1234567890-abcdefghij',
    github: `ghp_${'a1B2'.repeat(9)}`,
    jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig_value-123',
    pem: PEM,
  };
  const shown = JSON.parse(argsPreview(args, [CONFIGURED])) as Record<string, string>;

  it('shows the fields a call acts on, whatever they are called', () => {
    expect(shown.secret_name).toBe('prod-db');
    expect(shown.token_id).toBe('tok_42');
    expect(shown.header).toBe('Authorization: Bearer deploy-bot-user');
    expect(shown.password_hint).toBe('the usual one');
  });

  it('hides configured secrets and keys known by their form', () => {
    expect(shown.api_key).toBe('•••');
    expect(shown.openai).toBe('sk-proj-•••');
    expect(shown.slack).toBe('xoxb-•••');
    expect(shown.github).toBe('ghp_•••');
    expect(shown.jwt).toBe('•••');
    expect(shown.pem).toBe('•••');
  });

  it('still hides by name in logs', () => {
    expect(maskSecrets({ password: 'hunter2', auth: 'Bearer abcdefgh1234' })).toEqual({
      password: '•••',
      auth: '•••',
    });
    expect(maskSecrets({ note: 'Bearer abcdefgh1234', key: `ghp_${'x'.repeat(36)}` })).toEqual({
      note: 'Bearer •••',
      key: 'ghp_•••',
    });
  });
});

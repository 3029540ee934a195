import { describe, expect, it } from 'vitest';
import { canonicalArgsHash, canonicalJson } from '../../src/core/effects/canonical.ts';
import { EffectUnknownError, effectUnknownMessage } from '../../src/core/effects/errors.ts';

describe('canonicalArgsHash', () => {
  it('ignores key order at every depth but not array order or values', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] })).toBe('{"a":[{"c":3,"d":2}],"b":1}');
    expect(canonicalArgsHash({ x: { b: 1, a: 2 }, y: 3 })).toBe(canonicalArgsHash({ y: 3, x: { a: 2, b: 1 } }));
    expect(canonicalArgsHash({ list: [1, 2] })).not.toBe(canonicalArgsHash({ list: [2, 1] }));
    expect(canonicalArgsHash({ n: 1 })).not.toBe(canonicalArgsHash({ n: '1' }));
    expect(canonicalArgsHash({ a: 1 })).toMatch(/^[0-9a-f]{64}$/);
  });

  it('follows JSON rules for undefined and keeps a "__proto__" key', () => {
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
    expect(canonicalJson(undefined)).toBe('null');
    expect(canonicalArgsHash(JSON.parse('{"__proto__":{"x":1}}'))).not.toBe(canonicalArgsHash({}));
  });
});

describe('effect unknown text', () => {
  const receipt = { tool: 'write_file', startedAt: new Date('2026-01-02T10:03:04.567Z') };

  it('says what started, when, that it was not rerun, and what to check', () => {
    expect(effectUnknownMessage(receipt, { check: 'whether notes.txt has the new line' })).toBe(
      '⚠️ I started `write_file` at 2026-01-02 10:03:04 UTC but never saw it finish (most likely Kazma restarted ' +
        'while it ran), so I cannot tell whether it took effect, and I did not run it again. ' +
        'Check whether notes.txt has the new line and tell me how to continue.',
    );
    expect(effectUnknownMessage(receipt)).toContain('Check whether `write_file` made its change and tell me');
  });

  it('is carried by EffectUnknownError with a stable code', () => {
    const full = {
      ...receipt,
      threadId: 't',
      callId: 'c',
      turnId: null,
      argsHash: 'h',
      state: 'started' as const,
      result: null,
      finishedAt: null,
    };
    const error = new EffectUnknownError(full);
    expect(error).toMatchObject({ code: 'effect_unknown', name: 'EffectUnknownError', receipt: full });
    expect(error.message).toBe(effectUnknownMessage(receipt));
  });
});

// The core part behind the contract's "one polite refusal": once per person per chat per day.
import { describe, expect, it } from 'vitest';
import { RefusalLimiter } from '../../src/core/chat/index.ts';

describe('RefusalLimiter', () => {
  it('tells a person once per chat, again in another chat, and again after the window', () => {
    let now = 0;
    const refusals = new RefusalLimiter({ now: () => now });
    expect(refusals.shouldTell('telegram:777', 'telegram:-100')).toBe(true);
    expect(refusals.shouldTell('telegram:777', 'telegram:-100')).toBe(false);
    expect(refusals.shouldTell('telegram:777', 'telegram:-200')).toBe(true);
    expect(refusals.shouldTell('telegram:778', 'telegram:-100')).toBe(true);
    now = 24 * 60 * 60_000 - 1;
    expect(refusals.shouldTell('telegram:777', 'telegram:-100')).toBe(false);
    now = 24 * 60 * 60_000;
    expect(refusals.shouldTell('telegram:777', 'telegram:-100')).toBe(true);
  });

  it('stays bounded: the oldest entries are forgotten first', () => {
    const refusals = new RefusalLimiter({ maxEntries: 2, now: () => 0 });
    refusals.shouldTell('a', 'c');
    refusals.shouldTell('b', 'c');
    refusals.shouldTell('d', 'c');
    expect(refusals.shouldTell('b', 'c')).toBe(false);
    expect(refusals.shouldTell('a', 'c')).toBe(true); // forgotten, so told again
  });
});

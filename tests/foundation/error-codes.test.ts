// KazmaError codes are a closed set (src/core/errors.ts KazmaErrorCode): the type checker, run by
// `npm test`, refuses a code that is not listed, so a log query or an API client never matches a code
// that no error can carry.
import { describe, expect, it } from 'vitest';
import { KazmaError, StartupError } from '../../src/core/errors.ts';

describe('KazmaError codes', () => {
  it('take only listed codes (the @ts-expect-error lines fail the type check if an unlisted code were accepted)', () => {
    // @ts-expect-error 'no_such_code' is not a KazmaErrorCode
    const unlisted = new KazmaError('no_such_code', 'x');
    // @ts-expect-error a StartupError's code is a KazmaErrorCode too
    const unlistedStart = new StartupError('redis_gone', 'x');
    expect([unlisted.code, unlistedStart.code]).toEqual(['no_such_code', 'redis_gone']);
    expect(new KazmaError('thread_busy', 'x').code).toBe('thread_busy');
  });
});

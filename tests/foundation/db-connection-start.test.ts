// A pooled PostgreSQL connection lost while it starts (the server restarting, a network blip) fails only
// the statements sent on it. Nothing may escape as an unhandled rejection: in Node that ends the process,
// and Kazma with it, in the middle of a database incident it is built to ride out.
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import type { FreshDatabase } from '../helpers/databases.ts';
import { statementTap } from '../helpers/pg-wire-tap.ts';
import { proxiedPostgres } from '../helpers/tcp-proxy.ts';

let database: FreshDatabase | undefined;
const escaped: unknown[] = [];
const onUnhandled = (reason: unknown) => void escaped.push(reason);
afterEach(async () => {
  process.off('unhandledRejection', onUnhandled);
  await database?.dispose();
  database = undefined;
});

describe('a connection lost as it starts', () => {
  it('fails the statements on it, the pool carries on, and nothing escapes unhandled', async () => {
    let breaking = 0;
    // Once armed, the first statement a new connection sends (whatever the driver sends first) has its
    // connection reset, as if the server went away just then.
    const tap = statementTap((_text, nth) => (nth === 0 && breaking > 0 ? (breaking--, 'break') : undefined));
    ({ database } = await proxiedPostgres({ tap }));
    process.on('unhandledRejection', onUnhandled);
    breaking = 3;
    // More at once than the pool has open: new connections start, and the first three are cut.
    const burst = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => database!.db.execute(sql`select ${i}::int as n, pg_sleep(0.2)`)),
    );
    expect(breaking).toBe(0);
    expect(burst.filter((r) => r.status === 'rejected').length).toBeGreaterThan(0);
    // The pool replaces what it lost.
    const answer = (await database.db.execute(sql`select 42 as answer`)) as unknown as Array<{ answer: number }>;
    expect(answer[0]).toEqual({ answer: 42 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(escaped.map(String)).toEqual([]);
  });
});

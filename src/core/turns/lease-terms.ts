// The rule every statement that takes a thread lease follows, in one place: the row is taken when its
// lease has lapsed (by the database's clock), and renewed when the holder already holds it. Both the
// plain lease upsert (thread-lease.ts) and the one the chat's lease statement takes a thread's lease
// with (leases-ahead.ts) build on it.
import { eq, lt, or, sql } from 'drizzle-orm';
import { threadLeases } from '../db/index.ts';

/**
 * The holder (placeholder `holderParam`), the new expiry (`now()` plus placeholder `ttl`) and the
 * ON CONFLICT clause of a lease upsert: update owner and expiry only where the held lease expired or is
 * the holder's own.
 */
export function leaseTerms(holderParam: string) {
  const holder = sql.placeholder(holderParam) as unknown as string;
  const expiresAt = sql`now() + ${sql.placeholder('ttl')}::interval`;
  const onConflict = {
    target: threadLeases.threadId,
    set: { owner: holder, expiresAt },
    setWhere: or(lt(threadLeases.expiresAt, sql`now()`), eq(threadLeases.owner, holder)),
  };
  return { holder, expiresAt, onConflict };
}

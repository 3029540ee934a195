// The first operator without editing kazma.yaml: `kazma init` issues a one-time code for an operator's name,
// the person sends it to the bot in private (`/start CODE`, a Telegram deep link, or the code alone), and
// their platform id is recorded as that operator. The access check reads the claims from memory, as it reads
// the paired users; they are read again every few seconds, so every process on the database follows.
import { and, eq, gt, isNotNull, isNull, sql } from 'drizzle-orm';
import { type Db, operatorClaims } from '../db/index.ts';
import type { Logger } from '../log/index.ts';
import type { InboundEvent } from '../surface/index.ts';
import { newPairingCode, normaliseCode } from './codes.ts';

/** Why a claim code was not taken. */
export type ClaimRefusal = 'unknown' | 'expired' | 'used';

/** The code an event carries, if it could be one: `/start CODE`, `/claim CODE` or `CODE`, in private. */
export function claimCodeOf(event: InboundEvent): string | undefined {
  if (!event.direct) return undefined;
  if (event.kind === 'command')
    return event.name === 'start' || event.name === 'claim' ? normaliseCode(event.args.join('')) : undefined;
  if (event.kind !== 'message') return undefined;
  const match = /^(?:\/(?:start|claim)(?:@\S+)?\s+)?(\S[\S ]*)$/i.exec(event.text.trim());
  return match ? normaliseCode(match[1]!) : undefined;
}

/** The claimed operators, by `<platform>:<user id>`, for the access check. */
export class OperatorClaims {
  readonly #byUser = new Map<string, string>();
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly o: { db: Db; logger?: Logger; onError?: (error: unknown) => void }) {}

  /** A new code for `operator`, valid for `ttlMs` (`kazma init`). */
  static async issue(db: Db, operator: string, ttlMs: number): Promise<{ code: string; expiresAt: Date }> {
    const [row] = await db
      .insert(operatorClaims)
      .values({ code: newPairingCode(), operator, expiresAt: sql`now() + ${`${ttlMs} milliseconds`}::interval` })
      .returning({ code: operatorClaims.code, expiresAt: operatorClaims.expiresAt });
    return row!;
  }

  /** The operator name `user` claimed, if any. */
  operatorOf(user: string): string | undefined {
    return this.#byUser.get(user);
  }

  /** Takes `code` for `user`: the first sender of a live code becomes its operator, once. */
  async claim(code: string, user: string): Promise<{ operator: string } | { refused: ClaimRefusal }> {
    const [taken] = await this.o.db
      .update(operatorClaims)
      .set({ claimedBy: user, claimedAt: sql`now()` })
      .where(
        and(eq(operatorClaims.code, code), isNull(operatorClaims.claimedBy), gt(operatorClaims.expiresAt, sql`now()`)),
      )
      .returning({ operator: operatorClaims.operator });
    if (taken) {
      this.#byUser.set(user, taken.operator);
      return taken;
    }
    const [row] = await this.o.db.select().from(operatorClaims).where(eq(operatorClaims.code, code));
    return { refused: !row ? 'unknown' : row.claimedBy ? 'used' : 'expired' };
  }

  async load(): Promise<void> {
    const rows = await this.o.db
      .select({ user: operatorClaims.claimedBy, operator: operatorClaims.operator })
      .from(operatorClaims)
      .where(isNotNull(operatorClaims.claimedBy));
    // Only added to: a claim is never taken back (an operator leaves by leaving access.operators), so a read
    // that began before this process's own claim cannot drop it.
    for (const row of rows) this.#byUser.set(row.user!, row.operator);
  }

  follow(everyMs: number): void {
    const failed =
      this.o.onError ?? ((error: unknown) => this.o.logger?.warn({ err: error }, 'could not read the operator claims'));
    this.#timer = setInterval(() => void this.load().catch(failed), everyMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}

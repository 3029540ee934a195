import { and, asc, eq, gt, isNull, lte, sql } from 'drizzle-orm';
import { type Db, pairedUsers, pairingCodes } from '../db/index.ts';
import { newPairingCode } from './codes.ts';

/** A code given to a stranger: `fresh` when this call made it (else the live one they already had). */
export interface IssuedCode {
  code: string;
  expiresAt: Date;
  fresh: boolean;
}

/** Why `/pair` refused a code. */
export type RedeemRefusal = 'unknown' | 'expired' | 'used';

/** The stranger a redeemed code let in, and their private chat (to tell them). */
export interface Redeemed {
  user: string;
  chat: string;
  displayName: string | null;
}

/** One paired person, for `/config users`. */
export interface PairedUser {
  user: string;
  displayName: string | null;
  pairedBy: string;
  pairedAt: Date;
}

/**
 * The pairing tables. Issuing is one live code per stranger across processes (a partial unique index on
 * unused codes): a second issue finds the first. Redeeming is a compare-and-set on `used_at`, so one code
 * lets one person in once, whoever sends it first.
 */
export class PairingStore {
  constructor(private readonly db: Db) {}

  /** The stranger's live code, or a new one valid for `ttlMs` (an expired unused one is dropped first). */
  async issue(who: { user: string; displayName?: string; chat: string }, ttlMs: number): Promise<IssuedCode> {
    return this.db.transaction(async (tx) => {
      await tx
        .delete(pairingCodes)
        .where(
          and(eq(pairingCodes.user, who.user), isNull(pairingCodes.usedAt), lte(pairingCodes.expiresAt, sql`now()`)),
        );
      const [made] = await tx
        .insert(pairingCodes)
        .values({
          code: newPairingCode(),
          user: who.user,
          displayName: who.displayName ?? null,
          chat: who.chat,
          expiresAt: sql`now() + ${`${ttlMs} milliseconds`}::interval`,
        })
        .onConflictDoNothing()
        .returning({ code: pairingCodes.code, expiresAt: pairingCodes.expiresAt });
      if (made) return { ...made, fresh: true };
      const [live] = await tx
        .select({ code: pairingCodes.code, expiresAt: pairingCodes.expiresAt })
        .from(pairingCodes)
        .where(and(eq(pairingCodes.user, who.user), isNull(pairingCodes.usedAt)));
      if (!live) throw new Error('pairing code vanished while it was issued');
      return { ...live, fresh: false };
    });
  }

  /** Uses `code` and pairs its stranger, on `tx` (the command's journalled transaction). */
  async redeem(code: string, by: string, tx: Db): Promise<Redeemed | { refused: RedeemRefusal }> {
    const [used] = await tx
      .update(pairingCodes)
      .set({ usedAt: sql`now()` })
      .where(and(eq(pairingCodes.code, code), isNull(pairingCodes.usedAt), gt(pairingCodes.expiresAt, sql`now()`)))
      .returning({ user: pairingCodes.user, chat: pairingCodes.chat, displayName: pairingCodes.displayName });
    if (!used) {
      const [row] = await tx.select().from(pairingCodes).where(eq(pairingCodes.code, code));
      return { refused: !row ? 'unknown' : row.usedAt ? 'used' : 'expired' };
    }
    await tx
      .insert(pairedUsers)
      .values({ user: used.user, displayName: used.displayName, pairedBy: by })
      .onConflictDoNothing();
    return used;
  }

  async list(db: Db = this.db): Promise<PairedUser[]> {
    return db.select().from(pairedUsers).orderBy(asc(pairedUsers.pairedAt), asc(pairedUsers.user));
  }

  /** Removes a paired person; false when they were not paired. */
  async remove(user: string, tx: Db): Promise<boolean> {
    const gone = await tx.delete(pairedUsers).where(eq(pairedUsers.user, user)).returning({ user: pairedUsers.user });
    return gone.length > 0;
  }

  /** Drops codes that expired or were used before `before` (the sweep). */
  async prune(before: Date): Promise<void> {
    await this.db.delete(pairingCodes).where(lte(pairingCodes.expiresAt, before));
  }
}

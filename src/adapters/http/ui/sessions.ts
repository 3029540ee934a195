import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { eq, lte } from 'drizzle-orm';
import type { Clock } from '../../../core/clock.ts';
import { type Db, uiSessions } from '../../../core/db/index.ts';
import type { ApiCaller, ApiTokens } from '../api-tokens.ts';

/** A signed-in session: who, whether they may change anything, and the CSRF token their forms carry. */
export interface UiSession {
  /** The operator; undefined for the shared read-only token. */
  operator?: string;
  readOnly: boolean;
  csrf: string;
  expiresAt: Date;
}

/** Options for {@link UiSessions}. */
export interface UiSessionsOptions {
  db: Db;
  tokens: ApiTokens;
  /** `ui.session_ttl`. */
  ttlMs: number;
  clock: Clock;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Sessions of the web page, kept in the database (table `ui_sessions`) so every process on it agrees and a
 * restart signs nobody out. The cookie holds a random secret; the row is found by its digest, so reading
 * the table does not let anyone sign in. A session is refused once it expired or once the token it was
 * opened with is no longer the one configured for its holder (rotated, removed).
 */
export class UiSessions {
  readonly #o: UiSessionsOptions;

  constructor(options: UiSessionsOptions) {
    this.#o = options;
  }

  /** Opens a session for a caller who just gave a valid token; returns the cookie's value. */
  async open(caller: ApiCaller): Promise<{ cookie: string; session: UiSession }> {
    const now = this.#o.clock.now();
    // Housekeeping on the rare path: sign-ins are few, so expired rows never pile up.
    await this.#o.db.delete(uiSessions).where(lte(uiSessions.expiresAt, now));
    const cookie = randomBytes(32).toString('base64url');
    const session: UiSession = {
      ...(caller.kind === 'operator' && { operator: caller.name }),
      readOnly: caller.kind !== 'operator',
      csrf: randomBytes(24).toString('base64url'),
      expiresAt: new Date(now.getTime() + this.#o.ttlMs),
    };
    await this.#o.db.insert(uiSessions).values({
      id: sha256(cookie),
      operator: session.operator ?? null,
      tokenDigest: this.#o.tokens.digestOf(caller) ?? '',
      readOnly: session.readOnly,
      csrf: session.csrf,
      expiresAt: session.expiresAt,
    });
    return { cookie, session };
  }

  /** The live session a cookie names, or undefined (none, unknown, expired, or its token rotated). */
  async find(cookie: string | undefined): Promise<UiSession | undefined> {
    if (!cookie || cookie.length > 100) return undefined;
    const [row] = await this.#o.db
      .select()
      .from(uiSessions)
      .where(eq(uiSessions.id, sha256(cookie)))
      .limit(1);
    if (!row || row.expiresAt <= this.#o.clock.now()) return undefined;
    const caller: ApiCaller = row.operator ? { kind: 'operator', name: row.operator } : { kind: 'reader' };
    const current = this.#o.tokens.digestOf(caller);
    if (!current || !sameText(current, row.tokenDigest)) return undefined;
    return {
      ...(row.operator && { operator: row.operator }),
      readOnly: row.readOnly,
      csrf: row.csrf,
      expiresAt: row.expiresAt,
    };
  }

  async close(cookie: string | undefined): Promise<void> {
    if (cookie) await this.#o.db.delete(uiSessions).where(eq(uiSessions.id, sha256(cookie)));
  }
}

/** Equal strings, compared in a time that does not tell where they differ. */
export function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

import { canonicalJson } from '../effects/canonical.ts';

/** Options for {@link ApprovalGrants}. */
export interface ApprovalGrantsOptions {
  /** How long an "always" lasts (approvals.grant_ttl); default 30 minutes. */
  ttlMs?: number;
  /** Clock seam; default Date.now. */
  now?: () => number;
}

/**
 * "Always" answers, in memory: the same tool with the same arguments in the same chat runs without
 * asking until the grant expires. Exact arguments on purpose: approving `shell "git status"` must not
 * approve `shell "rm -rf src"`. Lost at restart, which only means asking again.
 */
export class ApprovalGrants {
  readonly #until = new Map<string, number>();
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(options: ApprovalGrantsOptions = {}) {
    this.#ttlMs = options.ttlMs ?? 30 * 60_000;
    this.#now = options.now ?? Date.now;
  }

  add(call: { chat: string; tool: string; args: unknown }): void {
    this.#until.set(key(call), this.#now() + this.#ttlMs);
  }

  allows(call: { chat: string; tool: string; args: unknown }): boolean {
    const k = key(call);
    const until = this.#until.get(k);
    if (until === undefined) return false;
    if (until > this.#now()) return true;
    this.#until.delete(k);
    return false;
  }
}

const key = (call: { chat: string; tool: string; args: unknown }): string => `${call.chat}\n${call.tool}\n${canonicalJson(call.args)}`;

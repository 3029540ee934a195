import { and, eq, sql } from 'drizzle-orm';
import { type Db, effectReceipts, type EffectReceipt, type ExecuteResult } from '../db/index.ts';
import { canonicalArgsHash } from './canonical.ts';
import { EffectArgsMismatchError, EffectReceiptStateError, type EffectKey } from './errors.ts';

/** What {@link EffectJournal.begin} writes. */
export interface BeginReceipt extends EffectKey {
  turnId?: string;
  tool: string;
  /** {@link canonicalArgsHash} of the arguments. */
  argsHash: string;
}

/**
 * The effect receipts of one database. Most callers want {@link runWithJournal}; these three
 * statements are its parts, public for the reconciler and for tests.
 */
export class EffectJournal {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /**
   * Writes the `started` receipt, before the tool acts.
   * Statement: INSERT … ON CONFLICT (thread_id, call_id) DO NOTHING RETURNING *.
   * Output: the new row when this caller wrote it (and so owns the run), undefined when a receipt
   * for the key already existed. Invariant: of any number of racing callers exactly one gets a row.
   */
  async begin(receipt: BeginReceipt): Promise<EffectReceipt | undefined> {
    const rows = await this.#db
      .insert(effectReceipts)
      .values({ ...receipt, turnId: receipt.turnId ?? null, state: 'started' })
      .onConflictDoNothing({ target: [effectReceipts.threadId, effectReceipts.callId] })
      .returning();
    return rows[0];
  }

  /**
   * Records the result: started → finished.
   * Statement: UPDATE … SET state='finished', result, finished_at=now() WHERE key AND state='started' RETURNING *.
   * Output: the finished row. Invariant: only a `started` row changes, so a result is written once;
   * otherwise throws {@link EffectReceiptStateError}.
   */
  async finish(key: EffectKey, result: ExecuteResult): Promise<EffectReceipt> {
    const rows = await this.#db
      .update(effectReceipts)
      .set({ state: 'finished', result, finishedAt: sql`now()` })
      .where(and(this.#where(key), eq(effectReceipts.state, 'started')))
      .returning();
    if (rows[0]) return rows[0];
    const found = await this.lookup(key);
    throw new EffectReceiptStateError(key, found ? found.state : 'missing');
  }

  /** The receipt for a call, or undefined when the call never began. */
  async lookup(key: EffectKey): Promise<EffectReceipt | undefined> {
    const rows = await this.#db.select().from(effectReceipts).where(this.#where(key)).limit(1);
    return rows[0];
  }

  #where(key: EffectKey) {
    return and(eq(effectReceipts.threadId, key.threadId), eq(effectReceipts.callId, key.callId));
  }
}

/** What {@link runWithJournal} needs to know about one tool call. */
export interface JournalRun {
  journal: EffectJournal;
  key: EffectKey;
  turnId?: string;
  tool: string;
  /** The validated arguments; hashed canonically, never stored. */
  args: unknown;
  /** The tool's `effects` flag; false runs straight through with no receipt. */
  effects: boolean;
  /**
   * The checks before the effect (`registry.prepare(...).guard`): a result when the call may not go
   * ahead, which is returned as `refused` with no receipt written; undefined to go on. Not run for a
   * call that already has a receipt: that call is settled from it.
   */
  guard?: () => Promise<ExecuteResult | undefined>;
  /** Does the work, e.g. `registry.prepare(name, args, ctx).run`, or `() => registry.execute(name, args, ctx)`. */
  run: () => Promise<ExecuteResult>;
}

/**
 * How a journalled call ended: `ran` now, `refused` by its guard before any receipt (nothing ran,
 * nothing was written), `replayed` from a finished receipt without running, or `unknown`: a receipt
 * says it started but not that it finished, so it may or may not have taken effect and is not run
 * again (show {@link effectUnknownMessage} and let a person decide).
 */
export type JournalOutcome =
  | { status: 'ran'; result: ExecuteResult }
  | { status: 'refused'; result: ExecuteResult }
  | { status: 'replayed'; result: ExecuteResult }
  | { status: 'unknown'; receipt: EffectReceipt };

/**
 * The one path that runs a side-effecting tool: write before you act, and act once.
 * A call that already has a receipt is settled from it (replayed, or `unknown`) and not judged again:
 * a guard's second opinion must not hide an effect that may have happened. A new call passes its
 * `guard` first, so a refusal leaves no receipt; then a receipt is begun (the winner of a race runs;
 * everyone else reads the receipt), the tool runs, and the result is recorded before returning, so
 * the graph moves on only once the result is durable.
 * A `run` that throws leaves the receipt `started`: whether it acted is unknown, and that is the truth.
 * A racing caller that loses while the winner still runs also gets `unknown`: from the database a
 * running call and a dead one look the same. Throws {@link EffectArgsMismatchError} when the call id
 * was recorded with another tool or other arguments.
 *
 * @example
 * const outcome = await runWithJournal({ journal, key: { threadId, callId: call.id }, tool: call.name,
 *   args, effects: tool.effects, ...registry.prepare(call.name, args, ctx) });
 * const text = outcome.status === 'unknown' ? effectUnknownMessage(outcome.receipt) : outcome.result;
 */
export async function runWithJournal(options: JournalRun): Promise<JournalOutcome> {
  const { journal, key, tool, guard } = options;
  if (!options.effects) {
    const refused = await guard?.();
    return refused ? { status: 'refused', result: refused } : { status: 'ran', result: await options.run() };
  }
  const argsHash = canonicalArgsHash(options.args);
  if (guard) {
    const existing = await journal.lookup(key);
    if (existing) return settle(key, existing, { tool, argsHash });
    const refused = await guard();
    if (refused) return { status: 'refused', result: refused };
  }
  const mine = await journal.begin({ ...key, turnId: options.turnId, tool, argsHash });
  if (!mine) {
    const existing = await journal.lookup(key);
    if (!existing) throw new EffectReceiptStateError(key, 'missing right after a conflicting insert');
    return settle(key, existing, { tool, argsHash });
  }
  const result = storable(await options.run());
  await journal.finish(key, result);
  return { status: 'ran', result };
}

function settle(key: EffectKey, receipt: EffectReceipt, presented: { tool: string; argsHash: string }): JournalOutcome {
  if (receipt.tool !== presented.tool || receipt.argsHash !== presented.argsHash) {
    throw new EffectArgsMismatchError(key, { tool: receipt.tool, argsHash: receipt.argsHash }, presented);
  }
  if (receipt.state === 'finished' && receipt.result) return { status: 'replayed', result: receipt.result };
  return { status: 'unknown', receipt };
}

/**
 * jsonb cannot hold U+0000 (a tool that read a binary file), and failing to record after the tool
 * acted would turn a success into "unknown". Replace it, and return the same value that is stored,
 * so a replay is identical to what the model saw the first time.
 */
function storable(result: ExecuteResult): ExecuteResult {
  const clean = (text: string): string => text.replaceAll('\u0000', '\uFFFD');
  return result.ok ? { ...result, output: clean(result.output) } : { ...result, error: clean(result.error) };
}

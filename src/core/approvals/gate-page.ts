import { inArray, sql } from 'drizzle-orm';
import { approvalGates, type Db, type GateState } from '../db/index.ts';
import { countGates } from './gate-store.ts';
import { gateFromRow } from './gate-view.ts';
import type { Gate } from './port.ts';

/** The row's version: a new one at every change of the row (PostgreSQL writes a new tuple for each). */
const VERSION = sql<string>`${approvalGates}.xmin::text || ${approvalGates}.ctid::text`;

/**
 * Numbered pages of gates, oldest first (creation to the millisecond, then id, as the broker's `list`
 * orders them), with how many there are in all — for the web page's approvals, read on every request and
 * every live redraw. One statement picks the page by the ids alone and counts every match on the way
 * (`count(*) over ()`: the sort reads them anyway), returning each row's version; only the rows not
 * already read at that version are then read whole. A count of its own, a sort carrying every column
 * (the arguments, the policy) and reading and parsing 50 whole rows again were most of that page's
 * work. Gates read are kept per process, by id, at most `keep` of them (the least recently shown go).
 */
export class GatePages {
  readonly #db: Db;
  readonly #keep: number;
  /** Least recently shown first (a Map keeps insertion order; showing one moves it to the end). */
  readonly #read = new Map<string, { version: string; gate: Gate }>();

  constructor(options: { db: Db; keep?: number }) {
    this.#db = options.db;
    this.#keep = options.keep ?? 500;
  }

  async page(filter: {
    states: GateState[];
    limit: number;
    offset?: number;
  }): Promise<{ gates: Gate[]; total: number }> {
    const picked = await this.#db
      .select({ id: approvalGates.id, version: VERSION, total: sql<number>`count(*) over ()`.mapWith(Number) })
      .from(approvalGates)
      .where(inArray(approvalGates.state, filter.states))
      .orderBy(sql`date_trunc('milliseconds', ${approvalGates.createdAt})`, approvalGates.id)
      .limit(filter.limit)
      .offset(filter.offset ?? 0);
    // A page past the end: nothing picked, so nothing counted either.
    if (picked.length === 0) return { gates: [], total: await countGates(this.#db, filter.states) };
    const stale = picked.filter((p) => this.#read.get(p.id)?.version !== p.version).map((p) => p.id);
    const fresh = new Map<string, Gate>();
    if (stale.length > 0) {
      const rows = await this.#db
        .select({ row: approvalGates, version: VERSION })
        .from(approvalGates)
        .where(inArray(approvalGates.id, stale));
      for (const { row, version } of rows) {
        const gate = gateFromRow(row);
        fresh.set(row.id, gate);
        this.#read.set(row.id, { version, gate });
      }
    }
    const gates: Gate[] = [];
    for (const { id } of picked) {
      const kept = this.#read.get(id);
      // Gone between the two reads (a sweep of old rows): left out, as a read a moment later would.
      const gate = fresh.get(id) ?? kept?.gate;
      if (!gate) continue;
      gates.push(gate);
      if (kept) {
        this.#read.delete(id);
        this.#read.set(id, kept);
      }
    }
    for (const id of this.#read.keys()) {
      if (this.#read.size <= this.#keep) break;
      this.#read.delete(id);
    }
    return { gates, total: picked[0]!.total };
  }
}

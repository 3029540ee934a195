// Where a turn's CPU goes, by the code that spends it: V8's sampling profiler is started around each
// measured block and each sample's own (self) time is billed to the package, Kazma directory or native
// step it was taken in. Summed per kind of turn, a category's ms per turn says what Kazma pays that the
// floor does not — measured, not read off a clock around one awaited call (an await also bills whatever
// else ran meanwhile: a write of the previous step, the previous turn's last statement).
import { Session } from 'node:inspector/promises';
import type { Profiler } from 'node:inspector';

/** Self time per category, in ms per turn. */
export type CategoryCosts = Record<string, number>;

// Native frames that have no script: their own names are what they are.
const NATIVE: Record<string, string> = {
  '(garbage collector)': 'garbage collection',
  '(program)': 'V8 and Node itself',
  writev: 'socket writes',
  writeBuffer: 'socket writes',
  writeUtf8String: 'socket writes',
  runMicrotasks: 'promise jobs',
};

// Not the turn's: idle time, and the inspector session's own `dispatch` (it builds the profile as it stops).
const NOT_THE_TURNS = new Set(['(idle)', 'dispatch']);

/** The category a sampled frame bills its time to; undefined for time that is not the turn's. */
function categoryOf(frame: Pick<Profiler.ProfileNode['callFrame'], 'functionName' | 'url'>): string | undefined {
  const { functionName, url } = frame;
  if (url === '' && NOT_THE_TURNS.has(functionName)) return undefined;
  if (url === '') return NATIVE[functionName] ?? `native ${functionName || '(anonymous)'}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const kazma = /\/src\/([^/]+\/[^/]+)\//.exec(url);
  if (kazma) return `kazma ${kazma[1]!}`;
  if (url.startsWith('node:') || url.startsWith('wasm:'))
    return url.startsWith('wasm:') ? 'WebAssembly' : 'Node internals';
  return 'other scripts';
}

/** Adds a profile's self time per category, in ms, to `into`. */
function addSelfTime(profile: Profiler.Profile, into: Map<string, number>): void {
  const category = new Map<number, string | undefined>(
    profile.nodes.map((node) => [node.id, categoryOf(node.callFrame)]),
  );
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const name = category.get(samples[i]!);
    if (name !== undefined) into.set(name, (into.get(name) ?? 0) + (deltas[i] ?? 0) / 1000);
  }
}

/**
 * Profiles blocks of turns, each billed to a kind. The profiler slows what it samples, so a profiled
 * pass is never the one whose CPU figures are printed.
 */
export class BlockProfiler {
  readonly #session: Session;
  readonly #spent = new Map<string, Map<string, number>>();
  readonly #turns = new Map<string, number>();

  private constructor(session: Session) {
    this.#session = session;
  }

  static async open(options: { intervalUs?: number } = {}): Promise<BlockProfiler> {
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: options.intervalUs ?? 100 });
    return new BlockProfiler(session);
  }

  /** Runs `turns` turns of `kind` under the profiler. */
  async block(kind: string, turns: number, run: () => Promise<void>): Promise<void> {
    await this.#session.post('Profiler.start');
    try {
      await run();
    } finally {
      const { profile } = await this.#session.post('Profiler.stop');
      const spent = this.#spent.get(kind) ?? new Map<string, number>();
      addSelfTime(profile, spent);
      this.#spent.set(kind, spent);
      this.#turns.set(kind, (this.#turns.get(kind) ?? 0) + turns);
    }
  }

  /** ms per turn by category, for each kind profiled. */
  perTurn(): Record<string, CategoryCosts> {
    const out: Record<string, CategoryCosts> = {};
    for (const [kind, spent] of this.#spent) {
      const turns = this.#turns.get(kind)!;
      out[kind] = Object.fromEntries([...spent].map(([name, ms]) => [name, ms / turns]));
    }
    return out;
  }

  close(): void {
    this.#session.disconnect();
  }
}

/** Rows of `kind` against `base`, largest difference first; the rest summed into one row. */
export function costDifference(
  kind: CategoryCosts,
  base: CategoryCosts,
  top: number,
): Array<{ category: string; base: number; kind: number }> {
  const names = [...new Set([...Object.keys(kind), ...Object.keys(base)])];
  const rows = names.map((category) => ({ category, base: base[category] ?? 0, kind: kind[category] ?? 0 }));
  rows.sort((a, b) => b.kind - b.base - (a.kind - a.base));
  const shown = rows.slice(0, top);
  const rest = rows.slice(top);
  if (rest.length > 0) {
    shown.push({
      category: `${rest.length} others`,
      base: rest.reduce((s, r) => s + r.base, 0),
      kind: rest.reduce((s, r) => s + r.kind, 0),
    });
  }
  shown.push({
    category: 'total (not idle)',
    base: rows.reduce((s, r) => s + r.base, 0),
    kind: rows.reduce((s, r) => s + r.kind, 0),
  });
  return shown;
}

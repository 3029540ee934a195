import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { effectReceipts } from '../../src/core/db/schema/index.ts';
import { canonicalArgsHash } from '../../src/core/effects/canonical.ts';
import { EffectArgsMismatchError, EffectReceiptStateError } from '../../src/core/effects/errors.ts';
import { EffectJournal, runWithJournal, type JournalOutcome } from '../../src/core/effects/journal.ts';
import type { ExecuteResult } from '../../src/core/tools/registry.ts';
import { describeEachBackend } from '../helpers/databases.ts';

/** A tool body that counts its runs; every test gets its own thread so the shared database never collides. */
function counter(result: ExecuteResult = { ok: true, output: 'wrote notes.txt' }) {
  const state = { runs: 0, run: async () => (state.runs++, result) };
  return state;
}
const newKey = () => ({ threadId: `t-${randomUUID()}`, callId: `call_${randomUUID()}` });
const args = { path: 'notes.txt', text: 'hello' };

describeEachBackend('effect journal', (database) => {
  const journal = () => new EffectJournal(database().db);
  const call = (key: ReturnType<typeof newKey>, run: () => Promise<ExecuteResult>, over: object = {}) =>
    runWithJournal({
      journal: journal(),
      key,
      turnId: 'turn-1',
      tool: 'write_file',
      args,
      effects: true,
      run,
      ...over,
    });

  it('runs a first call once and records a finished receipt with its result', async () => {
    const key = newKey();
    const tool = counter();
    expect(await call(key, tool.run)).toEqual({ status: 'ran', result: { ok: true, output: 'wrote notes.txt' } });
    expect(tool.runs).toBe(1);
    const receipt = await journal().lookup(key);
    expect(receipt).toMatchObject({
      ...key,
      turnId: 'turn-1',
      tool: 'write_file',
      state: 'finished',
      argsHash: canonicalArgsHash(args),
    });
    expect(receipt?.result).toEqual({ ok: true, output: 'wrote notes.txt' });
    expect(receipt?.finishedAt).toBeInstanceOf(Date);
    // postgres.js and PGlite must both store a jsonb object, not a JSON-encoded string.
    const [row] = await database()
      .db.select({ kind: sql<string>`jsonb_typeof(${effectReceipts.result})` })
      .from(effectReceipts)
      .where(eq(effectReceipts.callId, key.callId));
    expect(row?.kind).toBe('object');
  });

  it('replays a finished call from its receipt without running it (key order does not matter)', async () => {
    const key = newKey();
    await call(key, counter({ ok: false, error: 'disk full' }).run);
    const again = counter();
    const outcome = await call(key, again.run, { args: { text: 'hello', path: 'notes.txt' } });
    expect(outcome).toEqual({ status: 'replayed', result: { ok: false, error: 'disk full' } });
    expect(again.runs).toBe(0);
  });

  it('reports a started-but-unfinished call as unknown and never runs it', async () => {
    const key = newKey();
    await journal().begin({ ...key, tool: 'write_file', argsHash: canonicalArgsHash(args) });
    const tool = counter();
    const outcome = await call(key, tool.run);
    expect(outcome.status).toBe('unknown');
    expect(outcome.status === 'unknown' && outcome.receipt).toMatchObject({
      ...key,
      state: 'started',
      tool: 'write_file',
    });
    expect(tool.runs).toBe(0);
  });

  it('leaves the receipt started when the tool throws, so a retry is unknown rather than a second run', async () => {
    const key = newKey();
    await expect(
      call(key, async () => {
        throw new Error('killed mid-write');
      }),
    ).rejects.toThrow('killed mid-write');
    const tool = counter();
    expect((await call(key, tool.run)).status).toBe('unknown');
    expect(tool.runs).toBe(0);
  });

  it('lets exactly one of several concurrent callers run the same call', async () => {
    const key = newKey();
    const callers = 5;
    let runs = 0;
    let settled = 0;
    let open!: () => void;
    let fallback: NodeJS.Timeout | undefined;
    // The winner blocks until every loser has answered, so the losers must see a started receipt.
    // Should two callers run, only 3 settle; the fallback timer then opens and the assertions fail.
    const gate = new Promise<void>((resolve) => {
      open = resolve;
      fallback = setTimeout(resolve, 5_000);
    });
    const run = async (): Promise<ExecuteResult> => {
      runs++;
      await gate;
      return { ok: true, output: 'once' };
    };
    const outcomes = await Promise.all(
      Array.from({ length: callers }, () =>
        call(key, run).finally(() => {
          if (++settled === callers - 1) open();
        }),
      ),
    ).finally(() => clearTimeout(fallback));
    expect(runs).toBe(1);
    const byStatus = (s: JournalOutcome['status']) => outcomes.filter((o) => o.status === s).length;
    expect([byStatus('ran'), byStatus('unknown')]).toEqual([1, callers - 1]);
    expect(await call(key, run)).toEqual({ status: 'replayed', result: { ok: true, output: 'once' } });
  });

  it('runs a tool without effects every time and writes no receipt', async () => {
    const key = newKey();
    const tool = counter({ ok: true, output: '12:00' });
    expect(await call(key, tool.run, { effects: false, tool: 'current_time' })).toEqual({
      status: 'ran',
      result: { ok: true, output: '12:00' },
    });
    expect((await call(key, tool.run, { effects: false, tool: 'current_time' })).status).toBe('ran');
    expect(tool.runs).toBe(2);
    expect(await journal().lookup(key)).toBeUndefined();
  });

  it('writes no receipt and runs nothing when the guard refuses a new call', async () => {
    const refusal: ExecuteResult = { ok: false, error: 'refused: outside the workspace', refused: true };
    for (const effects of [true, false]) {
      const key = newKey();
      const tool = counter();
      const guard = async () => refusal;
      expect(await call(key, tool.run, { guard, effects })).toEqual({ status: 'refused', result: refusal });
      expect(tool.runs).toBe(0);
      expect(await journal().lookup(key)).toBeUndefined();
    }
  });

  it('asks the guard before the receipt is begun, and runs the tool after', async () => {
    const key = newKey();
    const order: string[] = [];
    const guard = async () => void order.push(`guard, receipt ${(await journal().lookup(key))?.state ?? 'none'}`);
    const run = async (): Promise<ExecuteResult> => (
      order.push(`run, receipt ${(await journal().lookup(key))?.state}`), { ok: true, output: 'done' }
    );
    expect(await call(key, run, { guard })).toEqual({ status: 'ran', result: { ok: true, output: 'done' } });
    expect(order).toEqual(['guard, receipt none', 'run, receipt started']);
  });

  it('settles a call that has a receipt from it, without asking the guard again', async () => {
    // A guard that now says no must not turn "effect unknown" or a finished result into "refused".
    let asked = 0;
    const guard = async (): Promise<ExecuteResult> => (
      asked++, { ok: false, error: 'refused: changed', refused: true }
    );
    const finished = newKey();
    await call(finished, counter().run);
    expect(await call(finished, counter().run, { guard })).toEqual({
      status: 'replayed',
      result: { ok: true, output: 'wrote notes.txt' },
    });
    const started = newKey();
    await journal().begin({ ...started, tool: 'write_file', argsHash: canonicalArgsHash(args) });
    expect((await call(started, counter().run, { guard })).status).toBe('unknown');
    await expect(call(started, counter().run, { guard, tool: 'shell' })).rejects.toBeInstanceOf(
      EffectArgsMismatchError,
    );
    expect(asked).toBe(0);
  });

  it('refuses a call id presented with other arguments or another tool, finished or not', async () => {
    const finished = newKey();
    await call(finished, counter().run);
    const started = newKey();
    await journal().begin({ ...started, tool: 'write_file', argsHash: canonicalArgsHash(args) });
    const tool = counter();
    for (const key of [finished, started]) {
      const changed = call(key, tool.run, { args: { ...args, text: 'bye' } });
      await expect(changed).rejects.toBeInstanceOf(EffectArgsMismatchError);
      await expect(call(key, tool.run, { tool: 'shell' })).rejects.toMatchObject({ code: 'effect_args_mismatch', key });
    }
    expect(tool.runs).toBe(0);
  });

  it('finishes a receipt once: a second finish or an unknown key is an error', async () => {
    const key = newKey();
    await journal().begin({ ...key, tool: 'write_file', argsHash: 'x' });
    await journal().finish(key, { ok: true, output: 'first' });
    await expect(journal().finish(key, { ok: true, output: 'second' })).rejects.toThrow(/receipt is finished/);
    await expect(journal().finish(newKey(), { ok: true, output: 'x' })).rejects.toBeInstanceOf(EffectReceiptStateError);
    expect((await journal().lookup(key))?.result).toEqual({ ok: true, output: 'first' });
  });

  it('stores output with a NUL byte and replays exactly what the model first saw', async () => {
    const key = newKey();
    const first = await call(key, counter({ ok: true, output: 'a\u0000b' }).run);
    expect(first).toEqual({ status: 'ran', result: { ok: true, output: 'a\uFFFDb' } });
    expect(await call(key, counter().run)).toEqual({ status: 'replayed', result: { ok: true, output: 'a\uFFFDb' } });
  });
});

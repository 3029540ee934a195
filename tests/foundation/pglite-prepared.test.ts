// Drizzle's client on PGlite runs each text as a named prepared statement: parsed once, then one call
// into the engine per run. It must answer exactly as PGlite's own query() does — rows, fields, counts,
// parameters and parsers — and keep its promises: errors as PGlite throws them (the session still
// usable), a bounded number of statements, a statement whose rows changed shape prepared again, and no
// statement run in the middle of another caller's transaction.
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withPreparedQueries } from '../../src/core/db/pglite-prepared.ts';

const PARSE = 0x50;
let pglite: PGlite;
let parses: string[] = [];

beforeAll(async () => {
  pglite = await PGlite.create();
  await pglite.exec(
    `create table t (id serial primary key, name text not null, tags text[], doc jsonb, at timestamptz, data bytea, n bigint)`,
  );
  // Every Parse message the engine is handed, by its text.
  const engine = pglite as unknown as { execProtocolRawSync(message: Uint8Array): Uint8Array };
  const original = engine.execProtocolRawSync.bind(pglite);
  engine.execProtocolRawSync = (message: Uint8Array) => {
    if (message[0] === PARSE) {
      const body = message.subarray(5);
      const zero = body.indexOf(0);
      parses.push(new TextDecoder().decode(body.subarray(zero + 1, body.indexOf(0, zero + 1))));
    }
    return original(message);
  };
});
afterAll(async () => {
  await pglite.close();
});

describe('a PGlite whose queries run prepared', () => {
  it('answers as PGlite’s own query() does, and parses a text once however often it runs', async () => {
    const client = withPreparedQueries(pglite);
    const insert = 'insert into t (name, tags, doc, at, data, n) values ($1, $2, $3, $4, $5, $6) returning *';
    const values = (i: number) => [
      `مرحبا 👋 ${i}`,
      ['a', 'b,c', 'd"e'],
      { k: i, nested: [1, null] },
      new Date(Date.UTC(2026, 0, i + 1)),
      new Uint8Array([0, 255, i]),
      9007199254740993n,
    ];
    parses = [];
    for (let i = 0; i < 3; i++) {
      const mine = await client.query(insert, values(i));
      const theirs = await pglite.query(insert, values(i));
      expect({ ...mine, rows: mine.rows.map((r) => ({ ...(r as object), id: 0 })) }).toEqual({
        ...theirs,
        rows: theirs.rows.map((r) => ({ ...(r as object), id: 0 })),
      });
    }
    expect(parses.filter((text) => text === insert)).toHaveLength(1 + 3); // once here, every time in query()

    const select = 'select name, at, doc from t where n = $1 order by id';
    const options = { rowMode: 'array' as const, parsers: { 1184: (value: string) => value } };
    expect(await client.query(select, [9007199254740993n], options)).toEqual(
      await pglite.query(select, [9007199254740993n], options),
    );
    const update = 'update t set name = name || $1 where id <= $2';
    const [mine, theirs] = [await client.query(update, ['!', 2]), await pglite.query(update, ['', 2])];
    expect(mine).toEqual(theirs);
    expect(mine.affectedRows).toBe(2);
    expect(await client.query('select null::text as nothing, $1::int as one', [null])).toEqual(
      await pglite.query('select null::text as nothing, $1::int as one', [null]),
    );
  });

  it('throws a database error as PGlite does, and the session goes on', async () => {
    const client = withPreparedQueries(pglite);
    const failing = 'insert into t (id, name) values ($1, $2)';
    await client.query(failing, [1000, 'x']);
    const error = await client.query(failing, [1000, 'x']).catch((e: unknown) => e);
    const theirs = await pglite.query(failing, [1000, 'x']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ code: '23505', message: (theirs as Error).message, query: failing });
    await expect(client.query('select 1 as one')).resolves.toMatchObject({ rows: [{ one: 1 }] });
    await expect(client.query('selec 1')).rejects.toMatchObject({ code: '42601', query: 'selec 1' });
    // A failed statement is no transaction left open.
    expect(pglite.isInTransaction()).toBe(false);
  });

  it('keeps at most maxStatements prepared, closing the least recently run', async () => {
    const client = withPreparedQueries(pglite, { maxStatements: 2 });
    const ours = async () =>
      (
        await pglite.query<{ n: number }>(
          `select count(*)::int as n from pg_prepared_statements where name like 'kazma_%'`,
        )
      ).rows[0]!.n;
    const before = await ours();
    for (const n of [1, 2, 3, 4, 1, 2]) await client.query(`select ${n} as n`);
    expect((await ours()) - before).toBe(2);
    parses = [];
    await client.query('select 2 as n'); // the most recent: still prepared
    expect(parses).toEqual([]);
  });

  it('prepares a statement again when the rows it returns changed shape', async () => {
    const client = withPreparedQueries(pglite);
    await pglite.exec(`create table shape (a int); insert into shape values (1)`);
    expect((await client.query('select * from shape')).rows).toEqual([{ a: 1 }]);
    await pglite.exec(`alter table shape add column b text default 'new'`);
    expect((await client.query('select * from shape')).rows).toEqual([{ a: 1, b: 'new' }]);
  });

  it('waits for a transaction another caller holds, as PGlite’s query() does', async () => {
    const client = withPreparedQueries(pglite);
    await pglite.exec(`create table counted (x int)`);
    let inside!: () => void;
    const entered = new Promise<void>((resolve) => (inside = resolve));
    let finish!: () => void;
    const transaction = pglite.transaction(async (tx) => {
      await tx.query('insert into counted values (1)');
      inside();
      await new Promise<void>((resolve) => (finish = resolve));
      await tx.query('insert into counted values (2)');
    });
    await entered;
    const counting = client.query<{ n: number }>('select count(*)::int as n from counted');
    setTimeout(() => finish(), 50);
    await transaction;
    expect((await counting).rows).toEqual([{ n: 2 }]);
  });

  it('leaves every other method PGlite’s', async () => {
    const client = withPreparedQueries(pglite);
    await expect(client.exec('select 1')).resolves.toHaveLength(1);
    expect(await client.transaction(async (tx) => (await tx.query('select 7 as seven')).rows)).toEqual([{ seven: 7 }]);
    expect(client.closed).toBe(false);
  });
});

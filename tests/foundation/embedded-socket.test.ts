// The owner's embedded database served to other commands (src/core/db/embedded-server.ts): a client's
// transaction and this process's own statements never run inside each other, and a client that goes away
// in the middle of one does not leave the owner waiting. Negative control: the same server without the gate
// lets the owner's insert land in the client's transaction, and the client's ROLLBACK takes it away.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import postgres from 'postgres';
import { afterEach, describe, expect, it } from 'vitest';
import { embeddedSocketPath, serveEmbeddedDatabase } from '../../src/core/db/embedded-server.ts';

const cleanup: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function owner(options: { gated: boolean }) {
  const dataDir = mkdtempSync(join(tmpdir(), 'kazma-socket-'));
  const pglite = await PGlite.create();
  await pglite.exec('create table notes (who text not null)');
  cleanup.push(() => pglite.close());
  mkdirSync(join(dataDir, 'socket'), { recursive: true });
  if (options.gated) {
    const served = await serveEmbeddedDatabase(pglite, dataDir);
    cleanup.push(() => served!.stop());
  } else {
    const raw = new PGLiteSocketServer({ db: pglite, path: embeddedSocketPath(dataDir), maxConnections: 4 });
    await raw.start();
    cleanup.push(() => raw.stop());
  }
  const client = () => {
    const sql = postgres({
      host: join(dataDir, 'socket'),
      port: 5432,
      user: 'postgres',
      prepare: false,
      fetch_types: false,
      max: 1,
      onnotice: () => {},
    });
    cleanup.push(() => sql.end({ timeout: 1 }));
    return sql;
  };
  return { pglite, client };
}

/** The client opens a transaction and writes; the owner writes meanwhile; the client rolls back. */
async function ownerWritesDuringClientTransaction(gated: boolean): Promise<string[]> {
  const { pglite, client } = await owner({ gated });
  const sql = client();
  let ownerWrite: Promise<unknown> | undefined;
  await sql
    .begin(async (tx) => {
      await tx`insert into notes values ('client')`;
      ownerWrite = pglite.query(`insert into notes values ('owner')`);
      // Time for the owner's statement to run, were it let in.
      await new Promise((resolve) => setTimeout(resolve, 200));
      await tx`select 1`;
      throw new Error('roll back');
    })
    .catch(() => {});
  await ownerWrite;
  const { rows } = await pglite.query<{ who: string }>('select who from notes order by who');
  return rows.map((r) => r.who);
}

describe('the embedded database served on a socket', () => {
  it("keeps the owner's statement out of a client's transaction: the client's rollback undoes only its own", async () => {
    expect(await ownerWritesDuringClientTransaction(true)).toEqual(['owner']);
  });

  it("negative control: served without the gate, the owner's insert is rolled back with the client's", async () => {
    expect(await ownerWritesDuringClientTransaction(false)).toEqual([]);
  });

  it('keeps a client out of an owner transaction until it commits', async () => {
    const { pglite, client } = await owner({ gated: true });
    const sql = client();
    let seen: string[] | undefined;
    await pglite.transaction(async (tx) => {
      await tx.query(`insert into notes values ('owner')`);
      const read = sql<{ who: string }[]>`select who from notes`.then((rows) => (seen = rows.map((r) => r.who)));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(seen).toBeUndefined();
      cleanup.push(() => read);
    });
    await cleanup.at(-1)!();
    expect(seen).toEqual(['owner']);
  });

  it('a client that disconnects inside its transaction is rolled back and the owner carries on', async () => {
    const { pglite, client } = await owner({ gated: true });
    const sql = client();
    await sql
      .begin(async (tx) => {
        await tx`insert into notes values ('left behind')`;
        await sql.end({ timeout: 0 }); // the connection goes away with the transaction open
        await tx`select 1`;
      })
      .catch(() => {});
    await pglite.query(`insert into notes values ('owner')`);
    const { rows } = await pglite.query<{ who: string }>('select who from notes');
    expect(rows.map((r) => r.who)).toEqual(['owner']);
  });
});

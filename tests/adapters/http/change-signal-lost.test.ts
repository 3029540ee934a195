// The "something changed" signal an open web page redraws on (db/change-signal.ts), when its LISTEN connection
// drops: a NOTIFY sent while it was away is lost, so listening again is itself told as a change — a page never
// keeps showing a decision made elsewhere in the meantime as still pending.
import postgres from 'postgres';
import { afterEach, it } from 'vitest';
import { pgChangeSignal } from '../../../src/core/db/change-signal.ts';
import { createPgDatabase } from '../../helpers/databases.ts';
import { eventually } from '../../helpers/eventually.ts';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

it('tells a change when its listening connection is made again', async () => {
  const pg = await createPgDatabase();
  cleanup.push(() => pg.drop());
  const page = postgres(pg.url, { max: 1, onnotice: () => {}, connection: { application_name: 'kazma-page' } });
  const other = postgres(pg.url, { max: 1, onnotice: () => {} });
  cleanup.push(() => page.end({ timeout: 1 }));
  cleanup.push(() => other.end({ timeout: 1 }));
  let told = 0;
  const unlisten = await pgChangeSignal(page).listen(() => told++);
  cleanup.push(unlisten);
  const before = told;

  await other`select pg_terminate_backend(pid) from pg_stat_activity
    where application_name = 'kazma-page' and query ilike 'listen%'`;
  pgChangeSignal(other).notify(); // lost: nobody listens at this instant
  await eventually(
    () => told,
    (n) => n > before,
    'a change told once listening again',
  );
  // And it hears what is told after.
  const again = told;
  pgChangeSignal(other).notify();
  await eventually(
    () => told,
    (n) => n > again,
    'a change told after listening again',
  );
});

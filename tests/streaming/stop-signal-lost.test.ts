// `/stop` across processes when the request is lost: a NOTIFY reaches only the connections listening at that
// moment, so one sent while the holder's LISTEN connection is being made again (here: ended by the server, as a
// restart or a dropped network would) is gone. The sender waits for the holder's answer and sends the request
// again; the holder runs it once and answers. Nobody answering is told as such, never as "stopped".
import postgres from 'postgres';
import { afterEach, expect, it } from 'vitest';
import { pgStopSignal } from '../../src/core/db/stop-signal.ts';
import { createPgDatabase } from '../helpers/databases.ts';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function twoProcesses() {
  const pg = await createPgDatabase();
  cleanup.push(() => pg.drop());
  const client = (name: string) => {
    const sql = postgres(pg.url, { max: 2, onnotice: () => {}, connection: { application_name: name } });
    cleanup.push(() => sql.end({ timeout: 1 }));
    return sql;
  };
  const a = client('kazma-a');
  const b = client('kazma-b');
  const stopped: string[] = [];
  // Every process listens from its start: A runs the turn; B is where /stop was typed.
  const unlistenA = await pgStopSignal(a).listen('A', (threadId) => {
    stopped.push(threadId);
    return 'stopped';
  });
  const signalB = pgStopSignal(b);
  const unlistenB = await signalB.listen('B', () => 'nothing');
  cleanup.push(async () => {
    await unlistenA();
    await unlistenB();
  });
  return { a, b, signalB, stopped };
}

it('sends a request lost while the holder listens again, once more: it stops once and says so', async () => {
  const { b, signalB, stopped } = await twoProcesses();
  const [ended] = await b`
    select pg_terminate_backend(pid) as ended from pg_stat_activity
    where application_name = 'kazma-a' and query ilike 'listen%'`;
  expect(ended?.ended).toBe(true);

  expect(await signalB.send('thread-1', 'A')).toBe('stopped');
  expect(stopped).toEqual(['thread-1']);
});

it('answers "unconfirmed" when the holder never answers', async () => {
  const { signalB, stopped } = await twoProcesses();
  expect(await signalB.send('thread-1', 'C')).toBe('unconfirmed');
  expect(stopped).toEqual([]);
});

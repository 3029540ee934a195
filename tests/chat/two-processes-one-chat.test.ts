// Acceptance for horizontal scale: two `kazma start` processes in webhook mode on one PostgreSQL database
// and one Redis, one chat's messages posted alternately to each process's webhook while a slow model is
// still answering the one before. Every message is answered exactly once, the replies come in the order
// the messages were sent, the model never has two of that chat's turns in flight, and both processes
// took turns (any process may take a chat's next event; none runs it out of order).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram/index.ts';
import { createPgDatabase } from '../helpers/databases.ts';
import { eventually } from '../helpers/eventually.ts';
import { KazmaProcess } from '../helpers/kazma-process.ts';
import { watchModelOverlap } from '../helpers/model-overlap.ts';

const SECRET = 'two-processes-one-chat';
const MAYA = { id: 42, first_name: 'Maya' };
/** Messages per burst, posted back to back alternately to the two processes; bursts start on A, B, A. */
const BURST = 4;
const BURSTS = 3;
const MODEL_DELAY_MS = 400;

let llm: FakeLlm;
let telegram: FakeTelegram;
let dir: string;
const running: KazmaProcess[] = [];
const cleanup: Array<() => Promise<unknown>> = [];
beforeAll(async () => {
  llm = await startFakeLlm();
  telegram = await startFakeTelegram();
  dir = mkdtempSync(join(tmpdir(), 'kazma-one-chat-'));
});
afterAll(async () => {
  for (const proc of running) proc.kill('SIGKILL');
  await Promise.all(running.map((proc) => proc.exited));
  for (const step of cleanup.reverse()) await step();
  await telegram.close();
  await llm.close();
  rmSync(dir, { recursive: true, force: true });
});

function start(name: string, databaseUrl: string, extra: Record<string, unknown> = {}): KazmaProcess {
  const config = join(dir, `${name}.yaml`);
  writeFileSync(
    config,
    JSON.stringify({
      ...extra,
      data_dir: join(dir, name),
      http: { port: 0 },
      database: { url: databaseUrl },
      model: { name: 'fake', base_url: llm.baseURL, max_retries: 0 },
      access: { operators: [{ name: 'maya', telegram: String(MAYA.id) }] },
      tools: { workspace: join(dir, 'workspace') },
      // Webhook mode without a public URL: nothing polls; the test posts each update to one process.
      telegram: {
        enabled: true,
        token: telegram.token,
        api_root: telegram.apiRoot,
        mode: 'webhook',
        webhook_secret: SECRET,
        webhook_url: '',
      },
    }),
  );
  const proc = new KazmaProcess(['start', '--config', config]);
  running.push(proc);
  return proc;
}

/** Starts A, then B (one after the other: each migrates the database at start), ready for webhooks. */
async function startTwo(
  databaseUrl: string,
  extra: Record<string, unknown> = {},
): Promise<{ a: KazmaProcess; b: KazmaProcess; ports: number[] }> {
  const a = start(`a-${running.length}`, databaseUrl, extra);
  await a.waitForLog((l) => l.msg === 'telegram started', 180_000);
  const b = start(`b-${running.length}`, databaseUrl, extra);
  await b.waitForLog((l) => l.msg === 'telegram started', 180_000);
  return { a, b, ports: [await a.port(), await b.port()] };
}

async function post(port: number, text: string): Promise<void> {
  const update = telegram.sendUserMessage({ chatId: MAYA.id, from: MAYA, text });
  const res = await fetch(`http://127.0.0.1:${port}/telegram/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET },
    body: JSON.stringify(update),
  });
  expect(res.status, `the webhook's answer to "${text}"`).toBe(200);
}

it('one chat, two processes: each message answered once, in order, never two turns at once', {
  timeout: 300_000,
}, async () => {
  const pg = await createPgDatabase();
  const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
  cleanup.push(
    () => pg.drop(),
    () => sql.end(),
  );
  const { a, b, ports } = await startTwo(pg.url);
  const total = BURST * BURSTS;
  const model = watchModelOverlap(llm, { calls: total, delayMs: MODEL_DELAY_MS });
  const replies = () => telegram.messages(MAYA.id).map((m) => m.text);
  const wait = { timeoutMs: 90_000, intervalMs: 50 };

  const sent: string[] = [];
  for (let burst = 0; burst < BURSTS; burst++) {
    // Back to back: each update is recorded (200) before the next is posted, while the model is still
    // answering the burst's first message, so later ones arrive at a process while the other works.
    for (let i = 0; i < BURST; i++) {
      const text = `message ${sent.length + 1}`;
      sent.push(text);
      await post(ports[(burst + i) % 2]!, text);
      // The burst's first message is the turn of the process it was posted to: the model has it before the
      // next is posted to the other process, which would otherwise, on a busy machine, take the chat first
      // (any process may take a chat's next event) and leave the first process no turn to run.
      if (i === 0)
        await eventually(
          () => model.calls().map((c) => c.text),
          (texts) => texts.includes(text) || undefined,
          `the model asked about "${text}"`,
          wait,
        );
    }
    await eventually(replies, (r) => r.length >= sent.length || undefined, `${sent.length} replies`, wait);
    // Quiet between bursts (no turn running, no chat held), so the next burst may go to either process.
    await eventually(
      () => sql`select count(*)::int as n from thread_leases where expires_at > now()`,
      (rows) => rows[0]!.n === 0 || undefined,
      'no lease held',
      wait,
    );
  }
  await new Promise((resolve) => setTimeout(resolve, 500)); // a late duplicate would show up here

  expect(replies()).toEqual(sent.map((text) => `echo: ${text}`));
  expect(model.calls().map((c) => c.text)).toEqual(sent);
  expect(model.overlaps()).toEqual([]);
  const rows = await sql<
    Array<{ state: string; owner: string }>
  >`select state, owner from inbox where chat = ${`telegram:${MAYA.id}`}`;
  expect(rows.map((r) => r.state)).toEqual(Array(total).fill('done'));
  const ran = new Set(rows.map((r) => r.owner.split('-')[0]));
  expect([...ran].sort(), 'both processes ran some of the turns').toEqual(
    [String(a.child.pid), String(b.child.pid)].sort(),
  );
});

it('a process dies holding the chat: the other takes the chat over and answers in order, each once', {
  timeout: 300_000,
}, async () => {
  const pg = await createPgDatabase();
  cleanup.push(() => pg.drop());
  // A short lease, so the test waits seconds for the dead process's lease to lapse, not the default 15 s.
  const { a, ports } = await startTwo(pg.url, { turns: { lease_ttl: '2s' } });
  const before = telegram.messages(MAYA.id).length;
  const replies = () =>
    telegram
      .messages(MAYA.id)
      .slice(before)
      .map((m) => m.text);
  llm.setDefault((body) => ({
    text: `echo: ${[...(body.messages ?? [])].reverse().find((m) => m.role === 'user')?.content as string}`,
  }));
  llm.hangNext(1, 120_000); // A's first model call never comes back before A dies
  const asked = llm.attempts.length;
  await post(ports[0]!, 'first, to A');
  await eventually(
    () => llm.attempts.length,
    (n) => n > asked || undefined,
    'A asking the model',
    { timeoutMs: 60_000 },
  );
  a.kill('SIGKILL');
  await a.exited;
  await post(ports[1]!, 'second, to B');

  await eventually(replies, (r) => r.length >= 2 || undefined, 'both answers from B', {
    timeoutMs: 90_000,
    intervalMs: 50,
  });
  await new Promise((resolve) => setTimeout(resolve, 1000)); // a late duplicate would show up here
  expect(replies()).toEqual(['echo: first, to A', 'echo: second, to B']);
});

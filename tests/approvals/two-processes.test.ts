// Acceptance: two Kazma processes on one PostgreSQL database and one Redis. A gate created by process A
// (the Telegram message reached A's webhook) is decided through process B's HTTP API: the graph resumes
// once, the reply reaches the origin Telegram chat, the card is edited, and a second decision through
// A's API gets 409 with the real state (in the response only, never in the chat). Each operator has
// their own API token, and the token says who decides.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram/index.ts';
import { createPgDatabase } from '../helpers/databases.ts';
import { eventually } from '../helpers/eventually.ts';
import { KazmaProcess } from '../helpers/kazma-process.ts';

/** maya's own API token: the API decides as her. */
const MAYA_TOKEN = 'maya-api-token-for-tests';
const SECRET = 'webhook-secret-for-tests';
let llm: FakeLlm;
let telegram: FakeTelegram;
const running: KazmaProcess[] = [];
beforeAll(async () => {
  llm = await startFakeLlm();
  telegram = await startFakeTelegram();
});
afterAll(async () => {
  for (const proc of running) proc.kill('SIGKILL');
  await telegram.close();
  await llm.close();
});

function start(dir: string, name: string, databaseUrl: string, workspace: string): KazmaProcess {
  const config = join(dir, `${name}.yaml`);
  writeFileSync(
    config,
    JSON.stringify({
      data_dir: join(dir, name),
      http: { port: 0 },
      database: { url: databaseUrl },
      model: { name: 'fake', base_url: llm.baseURL, max_retries: 0 },
      access: { operators: [{ name: 'maya', telegram: '42', api_token: MAYA_TOKEN }] },
      tools: { workspace },
      // Webhook mode without a public URL: nothing polls, the test posts each update to A's webhook.
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

it('a gate created by process A is decided through process B’s API; the graph resumes once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kazma-two-'));
  const workspace = join(dir, 'workspace');
  const pg = await createPgDatabase();
  try {
    const a = start(dir, 'a', pg.url, workspace);
    const aPort = await a.port();
    const b = start(dir, 'b', pg.url, workspace);
    const bPort = await b.port();
    const api = (port: number, path: string, body?: unknown) =>
      fetch(`http://127.0.0.1:${port}${path}`, {
        method: body ? 'POST' : 'GET',
        headers: { authorization: `Bearer ${MAYA_TOKEN}`, 'content-type': 'application/json' },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });

    llm.script({ toolCalls: [{ name: 'write_file', args: { path: 'note.txt', content: 'once\n', append: true } }] });
    const update = telegram.sendUserMessage({
      chatId: 42,
      from: { id: 42, first_name: 'Maya' },
      text: 'write the note',
    });
    const delivered = await fetch(`http://127.0.0.1:${aPort}/telegram/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET },
      body: JSON.stringify(update),
    });
    expect(delivered.status).toBe(200);
    const chat = () => telegram.messages(42);
    const wait = { timeoutMs: 60_000, intervalMs: 50 };
    const card = await eventually(
      chat,
      (ms) => ms.find((m) => m.reply_markup?.inline_keyboard.length),
      'the approval card in chat 42',
      wait,
    );

    const pending = (await (await api(bPort, '/api/approvals?state=pending')).json()) as {
      approvals: Array<{ id: string; tool: string }>;
    };
    expect(pending.approvals).toHaveLength(1);
    const [gate] = pending.approvals;
    expect(gate?.tool).toBe('write_file');

    const decided = await api(bPort, `/api/approvals/${gate!.id}/decision`, { decision: 'once' });
    expect(decided.status).toBe(200);
    await eventually(
      chat,
      (ms) => ms.find((m) => m.text.includes('done: appended 5 bytes to note.txt')),
      'the reply after the tool ran',
      wait,
    );
    expect(readFileSync(join(workspace, 'note.txt'), 'utf8')).toBe('once\n');
    expect(llm.requests.filter((r) => r.messages?.at(-1)?.role === 'tool')).toHaveLength(1);
    const edited = await eventually(
      chat,
      (ms) => ms.find((m) => m.message_id === card.message_id && m.text.includes('Approved once by maya on the API')),
      'the card edited to "Approved once by maya on the API"',
      wait,
    );
    expect(edited.reply_markup?.inline_keyboard.length ?? 0).toBe(0);

    const again = await api(aPort, `/api/approvals/${gate!.id}/decision`, { decision: 'deny' });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { message: string }).message).toMatch(
      /^Already decided: Approved once by maya on the API at \d\d:\d\d UTC\.$/,
    );
    // The late decision is answered in the HTTP response only: nothing about it reaches the chat.
    expect(telegram.messages(42).filter((m) => m.text.includes('Already decided'))).toEqual([]);
    expect(readFileSync(join(workspace, 'note.txt'), 'utf8')).toBe('once\n');

    const unauthorized = await fetch(`http://127.0.0.1:${bPort}/api/approvals`);
    expect(unauthorized.status).toBe(401);
    for (const proc of [a, b]) proc.kill('SIGTERM');
    for (const proc of [a, b]) expect((await proc.exited).code).toBe(0);
  } finally {
    await pg.drop();
  }
});

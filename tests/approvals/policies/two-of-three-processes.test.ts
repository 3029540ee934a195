// Acceptance: three approvers tapping at once on a 2-approval policy, across two real Kazma processes (the built
// CLI) on one PostgreSQL database and one Redis: the call runs exactly once. The three approvals arrive together,
// two at process A and one at process B (each operator's own API token says who decides): one is counted, one
// completes the quorum and wins, the third loses with the real state. `kazma approvals export` shows every step.
// (The embedded PGlite is one process by nature: its concurrent case is two-of-three.test.ts, two cores in one.)
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../fakes/llm-server.ts';
import { startFakeTelegram, type FakeTelegram } from '../../fakes/telegram/index.ts';
import { createPgDatabase } from '../../helpers/databases.ts';
import { eventually } from '../../helpers/eventually.ts';
import { KazmaProcess, runKazma } from '../../helpers/kazma-process.ts';

const SECRET = 'webhook-secret-for-tests';
const TOKENS = { omar: 'omar-api-token-for-tests', lea: 'lea-api-token-for-tests', ana: 'ana-api-token-for-tests' };
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

/** Writes process `name`'s kazma.yaml; returns its path. */
function configFor(dir: string, name: string, databaseUrl: string, workspace: string): string {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(
    path,
    JSON.stringify({
      data_dir: join(dir, name),
      http: { port: 0 },
      database: { url: databaseUrl },
      model: { name: 'fake', base_url: llm.baseURL, max_retries: 0 },
      access: {
        operators: [
          { name: 'maya', telegram: '42' },
          ...Object.entries(TOKENS).map(([operator, token]) => ({ name: operator, api_token: token })),
        ],
      },
      approvals: {
        policies: [
          { name: 'two-person', match: { tools: ['write_file'] }, approvals: 2, approvers: ['omar', 'lea', 'ana'] },
        ],
      },
      tools: { workspace },
      // Webhook mode without a public URL: nothing polls, the test posts the update to A's webhook.
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
  return path;
}

it('three approvers at once on two processes, a 2-approval policy: the call runs exactly once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kazma-quorum-'));
  const workspace = join(dir, 'workspace');
  const pg = await createPgDatabase();
  try {
    const configs = { a: configFor(dir, 'a', pg.url, workspace), b: configFor(dir, 'b', pg.url, workspace) };
    const a = new KazmaProcess(['start', '--config', configs.a]);
    running.push(a);
    const b = new KazmaProcess(['start', '--config', configs.b]);
    running.push(b);
    const ports = { a: await a.port(), b: await b.port() };

    llm.script({ toolCalls: [{ name: 'write_file', args: { path: 'note.txt', content: 'once\n', append: true } }] });
    const update = telegram.sendUserMessage({ chatId: 42, from: { id: 42, first_name: 'Maya' }, text: 'write it' });
    const wait = { timeoutMs: 60_000, intervalMs: 50 };
    // Until the adapter has started the webhook answers 503, and Telegram delivers the update again: so does this.
    const post = () =>
      fetch(`http://127.0.0.1:${ports.a}/telegram/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET },
        body: JSON.stringify(update),
      });
    await eventually(
      async () => (await post()).status,
      (status) => status === 200,
      'process A to take the update',
      wait,
    );
    await eventually(
      () => telegram.messages(42),
      (ms) => ms.find((m) => m.reply_markup?.inline_keyboard.length),
      'the approval card in chat 42',
      wait,
    );
    const listed = await fetch(`http://127.0.0.1:${ports.b}/api/approvals?state=pending`, {
      headers: { authorization: `Bearer ${TOKENS.omar}` },
    });
    const [gate] = ((await listed.json()) as { approvals: Array<{ id: string }> }).approvals;

    // All three at once: omar and ana through A, lea through B.
    const approve = (port: number, token: string) =>
      fetch(`http://127.0.0.1:${port}/api/approvals/${gate!.id}/decision`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ decision: 'once' }),
      });
    const answers = await Promise.all([
      approve(ports.a, TOKENS.omar),
      approve(ports.b, TOKENS.lea),
      approve(ports.a, TOKENS.ana),
    ]);
    // One counted (202), one completed the quorum (200), one too late (409 with the real state).
    expect(answers.map((r) => r.status).sort()).toEqual([200, 202, 409]);

    await eventually(
      () => telegram.messages(42),
      (ms) => ms.find((m) => m.text.includes('done: appended 5 bytes to note.txt')),
      'the reply after the tool ran',
      wait,
    );
    const exported = await runKazma(['approvals', 'export', '--config', configs.b]);
    expect(exported.code).toBe(0);
    const steps = exported.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { step: string; by: string | null });
    expect(steps.map((s) => s.step)).toEqual(['requested', 'counted', 'won', 'lost']);
    expect(steps[0]!.by).toBe('maya');
    expect(new Set(steps.slice(1).map((s) => s.by))).toEqual(new Set(['omar', 'lea', 'ana']));
    expect(readFileSync(join(workspace, 'note.txt'), 'utf8')).toBe('once\n');
    expect(llm.requests.filter((r) => r.messages?.at(-1)?.role === 'tool')).toHaveLength(1);

    for (const proc of [a, b]) proc.kill('SIGTERM');
    for (const proc of [a, b]) expect((await proc.exited).code).toBe(0);
    // Stopped, they ran nothing more.
    expect(readFileSync(join(workspace, 'note.txt'), 'utf8')).toBe('once\n');
  } finally {
    await pg.drop();
  }
});

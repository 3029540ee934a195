// Escalation across a kill -9: the process that armed a question's escalation timer dies before it is due; the next
// `kazma start` (same data dir, same Redis) escalates it once — one card in the escalation chat, one audit row — and
// the first card says so.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/core/db/index.ts';
import { decisionAudit } from '../../../src/core/db/schema/decision-audit.ts';
import { startFakeLlm } from '../../fakes/llm-server.ts';
import { startFakeTelegram } from '../../fakes/telegram/index.ts';
import { seedPgliteDataDir } from '../../helpers/databases.ts';
import { eventually } from '../../helpers/eventually.ts';
import { KazmaProcess, writeConfig } from '../../helpers/kazma-process.ts';
import { MAYA } from '../../adapters/telegram/harness.ts';

const CTO = 99;
const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

describe('escalation across a kill -9', () => {
  it('fires once, from the next process, after the one holding the timer was killed', async () => {
    const [fake, llm] = await Promise.all([startFakeTelegram(), startFakeLlm()]);
    cleanup.push(
      () => fake.close(),
      () => llm.close(),
    );
    fake.addChat({ id: CTO, type: 'private', first_name: 'Cto' });
    const { dir, path } = writeConfig(`
http: { port: 0 }
redis: { url: "redis://127.0.0.1:6379" }
model: { name: fake-model, base_url: "${llm.baseURL}", max_retries: 1 }
access: { operators: [{ name: Maya, telegram: "${MAYA.id}" }, { name: Omar, telegram: "43" }, { name: Cto, telegram: "${CTO}" }] }
approvals:
  policies:
    - { name: prod, match: { tools: [write_file] }, approvals: 2, escalate_after: 6s, escalate_to: [Cto] }
telegram: { enabled: true, token: "${fake.token}", api_root: "${fake.apiRoot}" }
shutdown: { timeout: 5s }
`);
    await seedPgliteDataDir(join(dir, 'kazma-data'));
    const env = { DATABASE_URL: undefined, REDIS_URL: undefined };
    const start = () => {
      const kazma = new KazmaProcess(['start', '--config', path], { env });
      cleanup.push(() => kazma.kill('SIGKILL'));
      return kazma;
    };

    llm.script({ toolCalls: [{ name: 'write_file', args: { path: 'note.txt', content: 'x' } }] });
    const first = start();
    await first.waitForLog((line) => line.msg === 'telegram started');
    fake.sendUserMessage({ chatId: MAYA.id, from: MAYA, text: 'write the note' });
    const card = await eventually(
      async () => fake.messages(MAYA.id),
      (ms) => ms.find((m) => m.reply_markup),
      'the approval card',
    );
    // Maya's approval is counted (1 of 2): the quorum is not met, and the card's edit shows its send was recorded.
    const once = card.reply_markup!.inline_keyboard.flat().find((b) => b.callback_data?.endsWith(':once'))!;
    fake.tapButton({ chatId: MAYA.id, messageId: card.message_id, from: MAYA, data: once.callback_data! });
    await eventually(
      async () => fake.messages(MAYA.id).find((m) => m.message_id === card.message_id)?.text ?? '',
      (text) => text.includes('1 of 2 approvals — Maya ✅'),
      'the card showing the first approval',
    );
    first.kill('SIGKILL');
    await first.exited;
    expect(fake.messages(CTO)).toEqual([]);

    const second = start();
    await second.waitForLog((line) => line.msg === 'telegram started');
    await eventually(
      async () => fake.messages(CTO),
      (ms) => ms.find((m) => m.reply_markup),
      'the card in the CTO’s chat',
      { timeoutMs: 30_000 },
    );
    await eventually(
      async () => fake.messages(MAYA.id).find((m) => m.message_id === card.message_id)?.text ?? '',
      (text) => /1 of 2 approvals — Maya ✅[\s\S]*Escalated: to Cto at \d\d:\d\d UTC/.test(text),
      'the first card saying it was escalated',
    );
    second.kill('SIGTERM');
    await second.exited;

    expect(fake.messages(CTO).filter((m) => m.reply_markup)).toHaveLength(1);
    const database = await openDatabase({ dataDir: join(dir, 'kazma-data') });
    cleanup.push(() => database.close());
    const rows = await database.db.select().from(decisionAudit);
    expect(rows.filter((r) => r.outcome === 'escalated')).toHaveLength(1);
  });
});

// Escalation: a question under a policy with escalate_after that has no quorum by then also goes to escalate_to,
// once, and its first card says so. The timer is a delayed BullMQ job: the process that armed it stops before it is
// due, and the next process (same database, same Redis) escalates it; its sweep does not escalate it again.
import { afterEach, describe, expect, it } from 'vitest';
import type { DurableApprovalBroker } from '../../../src/core/approvals/durable-broker.ts';
import { eventually } from '../../contract/support.ts';
import { startFakeLlm } from '../../fakes/llm-server.ts';
import { startFakeTelegram } from '../../fakes/telegram/index.ts';
import { kazmasOnOneDatabase } from '../../helpers/assembled.ts';
import { testQueuePrefix } from '../../helpers/outbox.ts';
import { MAYA } from '../../adapters/telegram/harness.ts';
import { audit } from '../helpers.ts';

const CTO = 99;
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});
const kazmas = kazmasOnOneDatabase();

describe('escalation after escalate_after without the quorum', () => {
  it('fires once, in the process running when it is due, and the first card says so', async () => {
    const [llm, telegram] = await Promise.all([startFakeLlm(), startFakeTelegram()]);
    cleanup.push(
      () => llm.close(),
      () => telegram.close(),
    );
    telegram.addChat({ id: CTO, type: 'private', first_name: 'Cto' });
    const config = {
      model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 1 },
      access: {
        operators: [
          { name: 'Maya', telegram: String(MAYA.id) },
          { name: 'Omar', telegram: '43' },
          { name: 'Cto', telegram: String(CTO) },
        ],
      },
      approvals: {
        policies: [
          { name: 'prod', match: { tools: ['write_file'] }, approvals: 2, escalate_after: '2s', escalate_to: ['Cto'] },
        ],
      },
      telegram: { enabled: true, token: telegram.token, api_root: telegram.apiRoot },
    };
    const queuePrefix = testQueuePrefix('esc');
    const first = await kazmas.start(config, { queuePrefix });
    llm.script({ toolCalls: [{ name: 'write_file', args: { path: 'note.txt', content: 'x' } }] });
    telegram.sendUserMessage({ chatId: MAYA.id, from: MAYA, text: 'write the note' });
    const card = await eventually(
      async () => telegram.messages(MAYA.id),
      (ms) => ms.find((m) => m.reply_markup),
      'the card',
    );
    const [gate] = await first.kazma.core.approvals.list();
    await first.settled();
    await kazmas.stop(first); // the process that armed the timer is gone before it is due
    expect(telegram.messages(CTO)).toEqual([]);

    const second = await kazmas.start(config, { queuePrefix });
    const escalated = await eventually(
      async () => telegram.messages(CTO),
      (ms) => ms.find((m) => m.reply_markup),
      'the card in the CTO’s chat',
      15_000,
    );
    expect(escalated.text).toContain('write_file');
    await second.settled();
    const original = await eventually(
      async () => telegram.messages(MAYA.id).find((m) => m.message_id === card.message_id),
      (m) => (m?.text?.includes('Escalated') ? m : undefined),
      'the first card saying it was escalated',
    );
    expect(original.text).toMatch(/Escalated: to Cto at \d\d:\d\d UTC/);
    expect(original.reply_markup).toBeDefined(); // still open: escalation asks more people, it decides nothing

    // The sweep (as after Redis forgot the timer) finds nothing more to escalate.
    const broker = second.kazma.core.approvals as DurableApprovalBroker;
    expect(await broker.escalations!.overdue()).toBe(0);
    const rows = (await audit(second.database.db, gate!.gateId)).filter((r) => r.outcome === 'escalated');
    expect(rows).toHaveLength(1);
    expect(telegram.messages(CTO).filter((m) => m.reply_markup)).toHaveLength(1);
  });
});

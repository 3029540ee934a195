// deny_reason: required on Telegram (the fake Bot API server): a Deny without a reason decides nothing; the denier
// is asked why with a force-reply prompt, and their reply to it denies the call with that reason, which the model
// gets. /deny <gate> <reason> does the same on every platform.
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../../contract/support.ts';
import { startFakeLlm } from '../../fakes/llm-server.ts';
import { startFakeTelegram } from '../../fakes/telegram/index.ts';
import { startAssembled } from '../../helpers/assembled.ts';
import { MAYA } from '../../adapters/telegram/harness.ts';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

describe('a required deny reason on Telegram', () => {
  it('the Deny asks why (force-reply); the reply denies with that reason, and the model gets it', async () => {
    const [llm, telegram] = await Promise.all([startFakeLlm(), startFakeTelegram()]);
    cleanup.push(
      () => llm.close(),
      () => telegram.close(),
    );
    const k = await startAssembled({
      model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 1 },
      access: { operators: [{ name: 'Maya', telegram: String(MAYA.id) }] },
      approvals: { policies: [{ name: 'careful', match: { tools: ['write_file'] }, deny_reason: 'required' }] },
      telegram: { enabled: true, token: telegram.token, api_root: telegram.apiRoot },
    });
    cleanup.push(() => k.close());

    llm.script({ toolCalls: [{ name: 'write_file', args: { path: 'note.txt', content: 'x' } }] });
    telegram.sendUserMessage({ chatId: MAYA.id, from: MAYA, text: 'write the note' });
    const card = await eventually(
      async () => telegram.messages(MAYA.id),
      (ms) => ms.find((m) => m.reply_markup),
      'the card',
    );
    const deny = card.reply_markup!.inline_keyboard.flat().find((b) => b.callback_data?.endsWith(':deny'))!
      .callback_data!;

    const tap = telegram.tapButton({ chatId: MAYA.id, messageId: card.message_id, from: MAYA, data: deny });
    const answer = await telegram.calls.waitFor(
      'answerCallbackQuery',
      (c) => c.body.callback_query_id === tap.callback_query!.id && c.body.text !== undefined,
      10_000,
    );
    const [gateRow] = await k.kazma.core.approvals.list();
    expect(answer.body.text).toBe(
      `A Deny of write_file needs a reason (policy careful): reply with it, or send /deny ${gateRow!.gateId} <reason>.`,
    );
    expect(gateRow!.state).toBe('pending');
    const prompt = await telegram.calls.waitFor(
      'sendMessage',
      (c) => (c.body.reply_markup as { force_reply?: boolean } | undefined)?.force_reply === true,
      10_000,
    );
    expect(prompt.body.text).toBe(`Why deny? Reply to this message with the reason (gate ${gateRow!.gateId}).`);

    const asked = telegram.messages(MAYA.id).find((m) => m.text === prompt.body.text)!;
    telegram.sendUserMessage({
      chatId: MAYA.id,
      from: MAYA,
      text: 'not on a Friday 🙅 — ليس اليوم',
      replyToBotMessage: asked.message_id,
    });
    await eventually(
      async () => llm.requests.length,
      (n) => n === 2,
      'the turn resumed with the denial',
    );
    await k.settled();
    const results = llm.requests[1]!.messages!.filter((m) => m.role === 'tool').map((m) => String(m.content));
    expect(results).toEqual([expect.stringContaining('not on a Friday 🙅 — ليس اليوم')]);
    const [settled] = await k.kazma.core.approvals.list({ states: ['settled'] });
    expect(settled).toMatchObject({
      decision: 'deny',
      denyReason: 'not on a Friday 🙅 — ليس اليوم',
      decidedBy: 'Maya',
    });
  });
});

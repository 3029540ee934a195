// One Kazma with Telegram AND Slack enabled (built by src/platforms.ts exactly as src/main.ts does),
// against both fakes: an approval whose cards went to both platforms is decided once, on whichever
// surface is first; a late tap on the other is told who decided where, and both cards show the outcome.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../contract/support.ts';
import { startFakeLlm } from '../fakes/llm-server.ts';
import { startFakeSlack } from '../fakes/slack/index.ts';
import { startFakeTelegram } from '../fakes/telegram/index.ts';
import { startAssembled } from '../helpers/assembled.ts';
import { clickDecision } from './slack/contract-driver.ts';
import { dmOf, MAYA as SLACK_MAYA } from './slack/harness.ts';
import { OMAR as TG_OMAR } from './telegram/harness.ts';

const OPS_GROUP = -1005000; // a Telegram group on approvals.channels
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function startBoth() {
  const [llm, telegram, slack] = await Promise.all([startFakeLlm(), startFakeTelegram(), startFakeSlack()]);
  cleanup.push(
    () => llm.close(),
    () => telegram.close(),
    () => slack.close(),
  );
  telegram.addChat({ id: OPS_GROUP, type: 'supergroup', title: 'Ops' });
  const k = await startAssembled({
    model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 1 },
    access: {
      operators: [
        { name: 'Maya', slack: SLACK_MAYA.id, telegram: '42' },
        { name: 'Omar', slack: 'U0OMAR', telegram: String(TG_OMAR.id) },
      ],
    },
    approvals: { channels: [`telegram:${OPS_GROUP}`] },
    telegram: { enabled: true, token: telegram.token, api_root: telegram.apiRoot },
    slack: { enabled: true, token: slack.botToken, signing_secret: slack.signingSecret, api_url: slack.apiUrl },
  });
  cleanup.push(() => k.close());
  return {
    llm,
    telegram,
    slack,
    workspace: k.workspace,
    settled: k.settled,
    platforms: k.kazma.platforms,
    url: `http://127.0.0.1:${k.kazma.http.port}/slack/events`,
  };
}

describe('one approval, cards on Telegram and Slack', () => {
  it('approved on Slack; a later tap on Telegram is told "already approved … on Slack"; both cards edited; the tool ran once', async () => {
    const k = await startBoth();
    expect(k.platforms.map((p) => p.name)).toEqual(['telegram', 'slack']);
    k.llm.script({ toolCalls: [{ name: 'write_file', args: { path: 'note.txt', content: 'x', append: true } }] });
    await k.slack.signer.sendMessage(k.url, { channel: dmOf(SLACK_MAYA), user: SLACK_MAYA.id, text: 'write the note' });
    const slackCard = await eventually(
      async () => k.slack.messages(dmOf(SLACK_MAYA)),
      (ms) => ms.find((m) => m.blocks?.some((b) => b.type === 'actions')),
      'the Slack card',
    );
    const tgCard = await eventually(
      async () => k.telegram.messages(OPS_GROUP),
      (ms) => ms.find((m) => m.reply_markup),
      'the Telegram card',
    );
    const deny = tgCard.reply_markup!.inline_keyboard.flat().find((b) => b.callback_data?.endsWith(':deny'))!
      .callback_data!;

    // Telegram is slow to take the edit (one 429 asking for 3 s), so its card still shows buttons when Omar taps.
    k.telegram.failNext('editMessageText', {
      status: 429,
      body: {
        ok: false,
        error_code: 429,
        description: 'Too Many Requests: retry after 3',
        parameters: { retry_after: 3 },
      },
    });
    expect(
      await clickDecision({ fake: k.slack, url: k.url }, SLACK_MAYA, `slack:${dmOf(SLACK_MAYA)}`, slackCard.ts, 'once'),
    ).toBe(200);
    await k.slack.calls.waitFor('chat.update', (c) => c.ok && c.args.ts === slackCard.ts, 10_000);
    await eventually(
      async () => k.telegram.calls.of('editMessageText'),
      (calls) => calls.some((c) => c.status === 429),
      'the delayed Telegram edit',
    );

    const tap = k.telegram.tapButton({ chatId: OPS_GROUP, messageId: tgCard.message_id, from: TG_OMAR, data: deny });
    const answer = await k.telegram.calls.waitFor(
      'answerCallbackQuery',
      (c) => c.body.callback_query_id === tap.callback_query!.id && c.body.text !== undefined,
      10_000,
    );
    expect(answer.body.text).toMatch(/^Already decided: Approved once by Maya on Slack at \d\d:\d\d UTC/);
    expect(answer.body.show_alert).toBe(true);

    await eventually(
      async () => k.slack.messages(dmOf(SLACK_MAYA)).map((m) => m.text),
      (t) => t.includes('done: appended 1 bytes to note.txt'),
      'the reply on Slack',
    );
    await k.settled();
    const slackNow = k.slack.messages(dmOf(SLACK_MAYA)).find((m) => m.ts === slackCard.ts)!;
    expect(slackNow.blocks?.some((b) => b.type === 'actions')).toBe(false);
    expect(JSON.stringify(slackNow.blocks)).toMatch(/Approved once by Maya on Slack at \d\d:\d\d UTC/);
    const tgNow = await eventually(
      async () => k.telegram.messages(OPS_GROUP),
      (ms) => ms.find((m) => m.message_id === tgCard.message_id && !m.reply_markup),
      'the Telegram card edited',
    );
    expect(tgNow.text).toMatch(/Approved once by Maya on Slack at \d\d:\d\d UTC/);
    expect(await readFile(join(k.workspace, 'note.txt'), 'utf8')).toBe('x');
    expect(k.llm.requests).toHaveLength(2); // the question, then the turn resumed once
  });
});

// The two-person rule across platforms, against the fake Telegram and Slack servers: Maya approves on Telegram,
// her second tap (on Slack) counts once, and the call runs once, after Omar approves on Slack. A Deny after one
// approval settles it as denied. Operators are one identity on every platform (access.operators).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../../contract/support.ts';
import { startFakeLlm } from '../../fakes/llm-server.ts';
import { type StoredMessage, startFakeSlack } from '../../fakes/slack/index.ts';
import { startFakeTelegram } from '../../fakes/telegram/index.ts';
import { startAssembled } from '../../helpers/assembled.ts';
import { clickDecision } from '../../adapters/slack/contract-driver.ts';
import { dmOf, MAYA as SLACK_MAYA, OMAR as SLACK_OMAR } from '../../adapters/slack/harness.ts';
import { MAYA as TG_MAYA } from '../../adapters/telegram/harness.ts';

const OPS_GROUP = -1005000; // a Telegram group on approvals.channels
const OPS_SLACK = 'C0OPS'; // a Slack channel on approvals.channels
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
        { name: 'Maya', slack: SLACK_MAYA.id, telegram: String(TG_MAYA.id) },
        { name: 'Omar', slack: SLACK_OMAR.id, telegram: '43' },
      ],
    },
    approvals: {
      channels: [`telegram:${OPS_GROUP}`, `slack:${OPS_SLACK}`],
      policies: [{ name: 'two-person', match: { tools: ['write_file'] }, approvals: 2 }],
    },
    telegram: { enabled: true, token: telegram.token, api_root: telegram.apiRoot },
    slack: { enabled: true, token: slack.botToken, signing_secret: slack.signingSecret, api_url: slack.apiUrl },
  });
  cleanup.push(() => k.close());
  const url = `http://127.0.0.1:${k.kazma.http.port}/slack/events`;
  return { llm, telegram, slack, workspace: k.workspace, settled: k.settled, url };
}

type Both = Awaited<ReturnType<typeof startBoth>>;

/** Maya asks on Slack; the cards reach her DM, the Ops channel on Slack and the Ops group on Telegram. */
async function ask(k: Both) {
  k.llm.script({ toolCalls: [{ name: 'write_file', args: { path: 'note.txt', content: 'x', append: true } }] });
  await k.slack.signer.sendMessage(k.url, { channel: dmOf(SLACK_MAYA), user: SLACK_MAYA.id, text: 'write the note' });
  const withButtons = (ms: StoredMessage[]) => ms.find((m) => m.blocks?.some((b) => b.type === 'actions'));
  const slackDm = await eventually(async () => k.slack.messages(dmOf(SLACK_MAYA)), withButtons, 'the Slack DM card');
  const slackOps = await eventually(async () => k.slack.messages(OPS_SLACK), withButtons, 'the Slack Ops card');
  const tgCard = await eventually(
    async () => k.telegram.messages(OPS_GROUP),
    (ms) => ms.find((m) => m.reply_markup),
    'the Telegram card',
  );
  const tap = async (decision: 'once' | 'deny') => {
    const data = tgCard.reply_markup!.inline_keyboard.flat().find((b) => b.callback_data?.endsWith(`:${decision}`))!
      .callback_data!;
    const update = k.telegram.tapButton({ chatId: OPS_GROUP, messageId: tgCard.message_id, from: TG_MAYA, data });
    return (
      await k.telegram.calls.waitFor(
        'answerCallbackQuery',
        (c) => c.body.callback_query_id === update.callback_query!.id && c.body.text !== undefined,
        10_000,
      )
    ).body.text as string;
  };
  return { slackDm, slackOps, tapTelegram: tap };
}

describe('the two-person rule across Telegram and Slack', () => {
  it('Maya on Telegram, Maya again on Slack (counted once), Omar on Slack: the call runs once, after Omar', async () => {
    const k = await startBoth();
    const { slackDm, slackOps, tapTelegram } = await ask(k);

    expect(await tapTelegram('once')).toBe(
      'Your approval is counted: 1 of 2 approvals — Maya ✅. write_file runs after 1 more.',
    );
    await eventually(
      async () => JSON.stringify(k.slack.messages(OPS_SLACK).find((m) => m.ts === slackOps.ts)?.blocks),
      (blocks) => blocks?.includes('1 of 2 approvals — Maya ✅'),
      'the Slack card showing the first approval',
    );

    const slackMaya = `slack:${dmOf(SLACK_MAYA)}`;
    expect(await clickDecision({ fake: k.slack, url: k.url }, SLACK_MAYA, slackMaya, slackDm.ts, 'once')).toBe(200);
    await eventually(
      async () => k.slack.ephemerals(dmOf(SLACK_MAYA), SLACK_MAYA.id).map((e) => e.text),
      (texts) => texts.includes('You already approved this; you count once: 1 of 2 approvals — Maya ✅.'),
      'Maya told she counts once',
    );
    await k.settled();
    await expect(readFile(join(k.workspace, 'note.txt'), 'utf8')).rejects.toThrow(/ENOENT/);

    const slackOmar = `slack:${OPS_SLACK}`;
    expect(await clickDecision({ fake: k.slack, url: k.url }, SLACK_OMAR, slackOmar, slackOps.ts, 'once')).toBe(200);
    await eventually(
      async () => k.slack.messages(dmOf(SLACK_MAYA)).map((m) => m.text),
      (t) => t.includes('done: appended 1 bytes to note.txt'),
      'the reply on Slack',
    );
    await k.settled();
    expect(await readFile(join(k.workspace, 'note.txt'), 'utf8')).toBe('x');
    expect(k.llm.requests).toHaveLength(2); // the question, then the turn resumed once
    const tgNow = await eventually(
      async () => k.telegram.messages(OPS_GROUP),
      (ms) => ms.find((m) => !m.reply_markup && m.text?.includes('2 of 2 approvals — Maya ✅ Omar ✅')),
      'the Telegram card edited to the outcome',
    );
    expect(tgNow.text).toMatch(/Approved once by Omar on Slack at \d\d:\d\d UTC/);
  });

  it('a Deny after one approval settles it as denied; nothing runs and the model is told', async () => {
    const k = await startBoth();
    const { slackOps, tapTelegram } = await ask(k);
    await tapTelegram('once');
    const slackOmar = `slack:${OPS_SLACK}`;
    expect(await clickDecision({ fake: k.slack, url: k.url }, SLACK_OMAR, slackOmar, slackOps.ts, 'deny')).toBe(200);
    await eventually(
      async () => k.llm.requests.length,
      (n) => n === 2,
      'the turn resumed with the denial',
    );
    await k.settled();
    const last = k.llm.requests
      .at(-1)!
      .messages!.filter((m) => m.role === 'tool')
      .map((m) => String(m.content));
    expect(last).toEqual([expect.stringMatching(/^denied by Omar\. The call did not run/)]);
    await expect(readFile(join(k.workspace, 'note.txt'), 'utf8')).rejects.toThrow(/ENOENT/);
  });
});

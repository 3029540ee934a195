// One Kazma with Telegram, Discord AND Slack enabled (built by src/platforms.ts exactly as src/main.ts
// does), against the three fakes: one approval whose cards went to all three is tapped on all three at
// the same time. Exactly one tap wins; the other two are told "already decided" privately; all three
// cards show the same outcome; the tool ran once.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DiscordPlatform } from '../../src/adapters/discord/index.ts';
import { eventually } from '../contract/support.ts';
import { startFakeDiscord } from '../fakes/discord/fake-discord.ts';
import { startFakeLlm } from '../fakes/llm-server.ts';
import { startFakeSlack } from '../fakes/slack/index.ts';
import { startFakeTelegram } from '../fakes/telegram/index.ts';
import { startAssembled } from '../helpers/assembled.ts';
import { GENERAL } from './discord/harness.ts';
import { visible } from './discord/visible.ts';
import { clickDecision } from './slack/contract-driver.ts';
import { dmOf, MAYA as SLACK_MAYA } from './slack/harness.ts';
import { OMAR as TG_OMAR } from './telegram/harness.ts';

const OPS_GROUP = -1005000; // a Telegram group on approvals.channels (GENERAL is the Discord one)
const NOOR = { id: '2000000000000000005', username: 'noor', global_name: 'Noor' }; // an operator on Discord
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function startAll() {
  const [llm, telegram, slack, discord] = await Promise.all([
    startFakeLlm(),
    startFakeTelegram(),
    startFakeSlack(),
    startFakeDiscord(),
  ]);
  cleanup.push(
    () => llm.close(),
    () => telegram.close(),
    () => slack.close(),
    () => discord.close(),
  );
  telegram.addChat({ id: OPS_GROUP, type: 'supergroup', title: 'Ops' });
  const k = await startAssembled({
    model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 1 },
    access: {
      operators: [
        { name: 'Maya', slack: SLACK_MAYA.id },
        { name: 'Omar', telegram: String(TG_OMAR.id) },
        { name: 'Noor', discord: NOOR.id },
      ],
    },
    approvals: { channels: [`telegram:${OPS_GROUP}`, `discord:${GENERAL}`] },
    telegram: { enabled: true, token: telegram.token, api_root: telegram.apiRoot },
    slack: { enabled: true, token: slack.botToken, signing_secret: slack.signingSecret, api_url: slack.apiUrl },
    discord: { enabled: true, token: discord.token, api: discord.api, application_id: discord.applicationId },
  });
  cleanup.push(() => k.close());
  const platforms = k.kazma.platforms;
  const dc = k.platform(DiscordPlatform);
  return {
    llm,
    telegram,
    slack,
    discord,
    workspace: k.workspace,
    settled: k.settled,
    platforms,
    dc,
    url: `http://127.0.0.1:${k.kazma.http.port}/slack/events`,
  };
}

describe('one approval, cards on Telegram, Slack and Discord', () => {
  it('three taps at once: one wins, two are told "already decided", all three cards edited, the tool ran once', async () => {
    const k = await startAll();
    expect(k.platforms.map((p) => p.name)).toEqual(['telegram', 'discord', 'slack']);
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
    const dcCard = await eventually(
      async () => k.discord.messages(GENERAL),
      (ms) => ms.find((m) => m.components.length > 0),
      'the Discord card',
    );
    const tgOnce = tgCard.reply_markup!.inline_keyboard.flat().find((b) => b.callback_data?.endsWith(':once'))!
      .callback_data!;
    const dcOnce = dcCard.components[0].components.find((b: { custom_id: string }) => b.custom_id.endsWith(':once'))
      .custom_id as string;
    expect(dcOnce).toBe(tgOnce); // the core's button id, carried verbatim by both

    // All three at once: none waits for another's answer.
    const slackClick = clickDecision(
      { fake: k.slack, url: k.url },
      SLACK_MAYA,
      `slack:${dmOf(SLACK_MAYA)}`,
      slackCard.ts,
      'once',
    );
    const tgTap = k.telegram.tapButton({
      chatId: OPS_GROUP,
      messageId: tgCard.message_id,
      from: TG_OMAR,
      data: tgOnce,
    });
    const dcClick = k.discord.clickButton({ channelId: GENERAL, messageId: dcCard.id, user: NOOR, customId: dcOnce });
    expect(await slackClick).toBe(200);
    await eventually(
      async () => k.llm.requests.length,
      (n) => n === 2,
      'the turn resumed',
    );
    await eventually(
      async () => k.dc.inbound.hasTaken(dcClick.id),
      (taken) => taken,
      'the Discord click taken',
    );
    await k.settled();

    // The outcome, as the (edited) Telegram card shows it: who won, where.
    const tgNow = await eventually(
      async () => k.telegram.messages(OPS_GROUP),
      (ms) => ms.find((m) => m.message_id === tgCard.message_id && !m.reply_markup),
      'the Telegram card edited',
    );
    const outcome = /Approved once by (Maya|Omar|Noor) on (Slack|Telegram|Discord) at \d\d:\d\d UTC/.exec(
      tgNow.text,
    )?.[0];
    expect(outcome).toBeDefined();
    const winner = /on (\w+) at/.exec(outcome!)![1];
    const slackNow = k.slack.messages(dmOf(SLACK_MAYA)).find((m) => m.ts === slackCard.ts)!;
    expect(slackNow.blocks?.some((b) => b.type === 'actions')).toBe(false);
    expect(JSON.stringify(slackNow.blocks)).toContain(outcome);
    const dcNow = k.discord.messages(GENERAL).find((m) => m.id === dcCard.id)!;
    expect(dcNow.components).toEqual([]);
    expect(visible(dcNow.content).text).toContain(outcome);

    // What each tapper was told privately.
    const told: Record<string, string[]> = {
      Slack: k.slack.ephemerals(dmOf(SLACK_MAYA), SLACK_MAYA.id).map((e) => JSON.stringify(e)),
      Telegram: k.telegram.calls
        .of('answerCallbackQuery')
        .filter((c) => c.body.callback_query_id === tgTap.callback_query!.id && c.body.show_alert)
        .map((c) => String(c.body.text)),
      Discord: k.discord
        .interactionResponses(dcClick.id)
        .followUps.filter((m) => (m.flags & 64) !== 0)
        .map((m) => m.content),
    };
    const losers = Object.keys(told).filter((p) => told[p]!.some((t) => t.includes(`Already decided: ${outcome}`)));
    expect(losers.sort()).toEqual(['Discord', 'Slack', 'Telegram'].filter((p) => p !== winner));
    expect(told[winner!]).toEqual([]);
    expect(k.discord.interactionResponses(dcClick.id).callbacks.map((c) => c.type)).toEqual([6]); // acknowledged, win or lose

    expect(await readFile(join(k.workspace, 'note.txt'), 'utf8')).toBe('x');
    expect(k.llm.requests).toHaveLength(2); // the question, then the turn resumed once
  });
});

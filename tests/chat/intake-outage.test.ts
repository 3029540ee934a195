// Record before you acknowledge, on every platform's intake, with PostgreSQL cut off through a TCP proxy:
//  - Telegram long polling keeps its offset (the update stays with Telegram) and answers once after;
//  - Slack's Request URL answers 503 (Slack retries) and the retry is answered once;
//  - a Discord gateway message cannot be refused back, so it is retried here and then its author is told.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { eventually } from '../helpers/eventually.ts';
import { proxiedPostgres, type TcpProxy } from '../helpers/tcp-proxy.ts';
import type { FreshDatabase } from '../helpers/databases.ts';
import { MAYA as TG_MAYA, startHarness as startTelegram } from '../adapters/telegram/harness.ts';
import { MAYA as SL_MAYA, dmOf, startSlackHarness } from '../adapters/slack/harness.ts';
import { DM_OF, MAYA as DC_MAYA, startHarness as startDiscord } from '../adapters/discord/harness.ts';

let llm: FakeLlm;
let database: FreshDatabase;
let proxy: TcpProxy;
const cleanup: Array<() => Promise<unknown>> = [];
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});
afterEach(async () => {
  llm.requests.length = 0;
  proxy.restore();
  for (const step of cleanup.splice(0).reverse()) await step();
  await database.dispose();
});

async function cutDatabase(): Promise<void> {
  ({ database, proxy } = await proxiedPostgres());
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('intake while the database is unreachable', () => {
  it('telegram polling: the update is not confirmed until recorded, then answered once', async () => {
    await cutDatabase();
    const h = await startTelegram({ modelBaseUrl: llm.baseURL, database });
    cleanup.push(() => h.close());
    proxy.cut();
    h.say({ chatId: TG_MAYA.id, from: TG_MAYA, text: 'while the database is away' });
    await pause(1500);
    const info = async () =>
      (await (await fetch(`${h.fake.apiRoot}/bot${h.fake.token}/getWebhookInfo`)).json()) as {
        result: { pending_update_count: number };
      };
    expect((await info()).result.pending_update_count).toBe(1); // Telegram still holds it
    expect(llm.requests).toHaveLength(0);
    proxy.restore();
    await eventually(
      async () => h.fake.messages(TG_MAYA.id).map((m) => m.text),
      (t) => t.length > 0 && t,
      'the reply',
      30_000,
    );
    await h.settled();
    expect(h.fake.messages(TG_MAYA.id).map((m) => m.text)).toEqual(['echo: while the database is away']);
    await eventually(info, (i) => i.result.pending_update_count === 0, 'the offset confirmed', 40_000);
  });

  it('slack: 503 while it cannot record, and Slack’s retry is answered once', async () => {
    await cutDatabase();
    const h = await startSlackHarness({ modelBaseUrl: llm.baseURL, database });
    cleanup.push(() => h.close());
    const dm = dmOf(SL_MAYA);
    const event = {
      type: 'message',
      channel: dm,
      channel_type: 'im',
      user: SL_MAYA.id,
      text: 'while the database is away',
      ts: '1790000000.000100',
    };
    proxy.cut();
    const first = await h.fake.signer.sendEvent(h.url, event, { eventId: 'Ev0OUTAGE01' });
    expect(first.status).toBe(503);
    proxy.restore();
    const retry = await h.fake.signer.sendEvent(h.url, event, {
      eventId: 'Ev0OUTAGE01',
      retryNum: 1,
      retryReason: 'http_error',
    });
    expect(retry.status).toBe(200);
    const again = await h.fake.signer.sendEvent(h.url, event, {
      eventId: 'Ev0OUTAGE01',
      retryNum: 2,
      retryReason: 'http_error',
    });
    expect(again.status).toBe(200);
    await h.settled();
    expect(
      h.fake
        .messages(dm)
        .filter((m) => m.user !== SL_MAYA.id)
        .map((m) => m.text),
    ).toEqual(['echo: while the database is away']);
    expect(llm.requests).toHaveLength(1);
  });

  it('discord: a message that cannot be recorded is retried, then its author is told to send it again', async () => {
    await cutDatabase();
    const h = await startDiscord({ modelBaseUrl: llm.baseURL, database, recordRetryDelaysMs: [100, 200] });
    cleanup.push(() => h.close());
    const dm = DM_OF[DC_MAYA.id]!;
    const botTexts = () =>
      h.fake
        .messages(dm)
        .filter((m) => m.author.id === h.fake.bot.id)
        .map((m) => m.content);
    proxy.cut();
    h.say({ channelId: dm, author: DC_MAYA, content: 'while the database is away', guild: false });
    const told = await eventually(
      async () => botTexts(),
      (t) => t.length > 0 && t,
      'the notice',
      90_000,
    );
    expect(told).toEqual([expect.stringMatching(/could not take that in .*send it again/)]);
    expect(llm.requests).toHaveLength(0);
    proxy.restore();
    h.say({ channelId: dm, author: DC_MAYA, content: 'and now?', guild: false });
    await h.settled();
    expect(botTexts().at(-1)).toBe('echo: and now?');
  });
});

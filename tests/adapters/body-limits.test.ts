// Class check: no route reads an unbounded body. Kazma is assembled as `kazma start` does it (src/assemble.ts),
// with every platform enabled (Telegram in webhook mode), and EVERY route that takes a body — found from
// the app itself, not listed here — is sent an endless chunked body carrying every credential Kazma
// knows (Telegram's secret, an operator's API token). Each must answer without reading it to the end:
// 413 past its cap, or 401/403/503 before reading at all. A new route without a cap fails this test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpServer } from '../../src/adapters/http/index.ts';
import { startFakeDiscord } from '../fakes/discord/fake-discord.ts';
import { startFakeLlm } from '../fakes/llm-server.ts';
import { startFakeSlack } from '../fakes/slack/index.ts';
import { startFakeTelegram } from '../fakes/telegram/index.ts';
import { startAssembled } from '../helpers/assembled.ts';

const SECRET = 'body_limits-Secret_1';
const TOKEN = 'maya-api-token-0123456789abcdef';
const ENDLESS = 256 * 1024 * 1024;
const cleanup: Array<() => Promise<unknown>> = [];
let http: HttpServer;
let base: string;

beforeAll(async () => {
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
  const k = await startAssembled({
    model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 0 },
    access: { operators: [{ name: 'Maya', telegram: '42', api_token: TOKEN }] },
    telegram: {
      enabled: true,
      token: telegram.token,
      api_root: telegram.apiRoot,
      mode: 'webhook',
      webhook_secret: SECRET,
    },
    slack: { enabled: true, token: slack.botToken, signing_secret: slack.signingSecret, api_url: slack.apiUrl },
    discord: { enabled: true, token: discord.token, api: discord.api, application_id: discord.applicationId },
  });
  cleanup.push(() => k.close());
  http = k.kazma.http;
  base = `http://127.0.0.1:${http.port}`;
});
afterAll(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** Every route that takes a body, as the app has them (path parameters filled in). */
function bodyRoutes(): string[] {
  const paths = http.app.routes
    .filter((r) => ['POST', 'PUT', 'PATCH', 'ALL'].includes(r.method) && !r.path.endsWith('*'))
    .map((r) => r.path.replace(/:[^/]+/g, 'x'));
  return [...new Set(paths)];
}

describe('every route with a body has a cap', () => {
  it('finds the routes: webhooks of each platform and the approvals API', () => {
    expect(bodyRoutes()).toEqual(
      expect.arrayContaining(['/telegram/webhook', '/slack/events', '/api/approvals/x/decision']),
    );
  });

  it('answers an endless body early, whoever sends it', async () => {
    for (const path of bodyRoutes()) {
      let sent = 0;
      const chunk = new Uint8Array(64 * 1024).fill(32);
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= ENDLESS) return controller.close();
          sent += chunk.length;
          controller.enqueue(chunk);
        },
      });
      const response = await fetch(`${base}${path}`, {
        method: 'POST',
        body,
        duplex: 'half',
        headers: {
          'content-type': 'application/json',
          'x-telegram-bot-api-secret-token': SECRET,
          authorization: `Bearer ${TOKEN}`,
        },
      } as RequestInit);
      expect([401, 403, 413, 503], `${path} answered ${response.status}`).toContain(response.status);
      expect(sent, `${path} read ${sent} bytes before answering`).toBeLessThan(32 * 1024 * 1024);
    }
  });
});

// Class check: no route reads an unbounded body. Kazma's HTTP app is assembled as src/main.ts does it,
// with every platform enabled (Telegram in webhook mode), and EVERY route that takes a body — found from
// the app itself, not listed here — is sent an endless chunked body carrying every credential Kazma
// knows (Telegram's secret, an operator's API token). Each must answer without reading it to the end:
// 413 past its cap, or 401/403/503 before reading at all. A new route without a cap fails this test.
import { randomUUID } from 'node:crypto';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalsApi } from '../../src/adapters/http/approvals-api.ts';
import { HttpServer } from '../../src/adapters/http/index.ts';
import { SurfaceRegistry } from '../../src/core/chat/surfaces.ts';
import { parseConfig } from '../../src/core/config/index.ts';
import { createKazmaCore } from '../../src/core/kazma-core.ts';
import { createLogger } from '../../src/core/log/index.ts';
import { OutboxWorker } from '../../src/jobs/outbox-worker.ts';
import { createPlatforms, type RunningPlatform } from '../../src/platforms.ts';
import { startFakeDiscord } from '../fakes/discord/fake-discord.ts';
import { startFakeLlm } from '../fakes/llm-server.ts';
import { startFakeSlack } from '../fakes/slack/index.ts';
import { startFakeTelegram } from '../fakes/telegram/index.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { TEST_REDIS } from '../helpers/outbox.ts';

const SECRET = 'body_limits-Secret_1';
const TOKEN = 'maya-api-token-0123456789abcdef';
const ENDLESS = 256 * 1024 * 1024;
const cleanup: Array<() => Promise<unknown>> = [];
let http: HttpServer;
let base: string;

beforeAll(async () => {
  const [llm, telegram, slack, discord] = await Promise.all([startFakeLlm(), startFakeTelegram(), startFakeSlack(), startFakeDiscord()]);
  cleanup.push(() => llm.close(), () => telegram.close(), () => slack.close(), () => discord.close());
  const workspace = await realpath(await mkdtemp(join(tmpdir(), 'kazma-limits-')));
  cleanup.push(() => rm(workspace, { recursive: true, force: true }));
  const raw = {
    data_dir: join(workspace, 'data'),
    model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 0 },
    access: { operators: [{ name: 'Maya', telegram: '42', api_token: TOKEN }] },
    telegram: { enabled: true, token: telegram.token, api_root: telegram.apiRoot, mode: 'webhook', webhook_secret: SECRET },
    slack: { enabled: true, token: slack.botToken, signing_secret: slack.signingSecret, api_url: slack.apiUrl },
    discord: { enabled: true, token: discord.token, api: discord.api, application_id: discord.applicationId },
    tools: { workspace },
  };
  const loaded = parseConfig(JSON.stringify(raw), { env: { PATH: process.env.PATH }, baseDir: workspace });
  const logger = createLogger({ level: 'silent' });
  const database = await freshDatabase('pglite');
  cleanup.push(() => database.dispose());
  const surfaces = new SurfaceRegistry();
  const outbox = new OutboxWorker({ db: database.db, surfaces, logger, concurrency: 2, queue: { connection: TEST_REDIS, prefix: `kazma-lim-${randomUUID().slice(0, 8)}` } });
  cleanup.push(() => outbox.close());
  const core = await createKazmaCore({ loaded, database, logger, surfaces, outbox });
  cleanup.push(() => core.stop(2000));
  http = new HttpServer({ host: '127.0.0.1', port: 0, logger, checks: {} });
  http.app.route('/', approvalsApi({ readToken: '', operators: loaded.config.access.operators, core: { list: (f) => core.approvals.list(f), decide: (i) => core.decide(i) } }));
  const platforms: RunningPlatform[] = await createPlatforms({ loaded, core, http, logger });
  base = `http://127.0.0.1:${await http.listen()}`;
  cleanup.push(() => http.close());
  for (const platform of platforms) {
    await platform.start();
    cleanup.push(() => platform.stop());
  }
});
afterAll(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** Every route that takes a body, as the app has them (path parameters filled in). */
function bodyRoutes(): string[] {
  const paths = http.app.routes.filter((r) => ['POST', 'PUT', 'PATCH', 'ALL'].includes(r.method) && !r.path.endsWith('*')).map((r) => r.path.replace(/:[^/]+/g, 'x'));
  return [...new Set(paths)];
}

describe('every route with a body has a cap', () => {
  it('finds the routes: webhooks of each platform and the approvals API', () => {
    expect(bodyRoutes()).toEqual(expect.arrayContaining(['/telegram/webhook', '/slack/events', '/api/approvals/x/decision']));
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
        method: 'POST', body, duplex: 'half',
        headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET, authorization: `Bearer ${TOKEN}` },
      } as RequestInit);
      expect([401, 403, 413, 503], `${path} answered ${response.status}`).toContain(response.status);
      expect(sent, `${path} read ${sent} bytes before answering`).toBeLessThan(32 * 1024 * 1024);
    }
  });
});

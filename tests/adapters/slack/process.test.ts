// End to end through the real process: `kazma doctor` and `kazma start` spawned with a kazma.yaml whose
// slack.api_url points at the fake Slack and model.base_url at the fake LLM (both in this process); the
// fake's signer posts to the Request URL of the spawned Kazma.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../../helpers/eventually.ts';
import { startFakeLlm, type FakeLlm } from '../../fakes/llm-server.ts';
import { startFakeSlack, type FakeSlack } from '../../fakes/slack/index.ts';
import { seedPgliteDataDir } from '../../helpers/databases.ts';
import { KazmaProcess, runKazma, writeConfig } from '../../helpers/kazma-process.ts';
import { dmOf, MAYA } from './harness.ts';

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function setup(token?: string): Promise<{ fake: FakeSlack; llm: FakeLlm; config: string; dir: string }> {
  const fake = await startFakeSlack();
  const llm = await startFakeLlm();
  cleanup.push(
    () => fake.close(),
    () => llm.close(),
  );
  const { dir, path } = writeConfig(`
http: { port: 0 }
model: { name: fake-model, base_url: "${llm.baseURL}", max_retries: 1 }
access: { operators: [{ name: Maya, slack: ${MAYA.id} }] }
slack: { enabled: true, token: "${token ?? fake.botToken}", signing_secret: "${fake.signingSecret}", api_url: "${fake.apiUrl}" }
shutdown: { timeout: 5s }
`);
  await seedPgliteDataDir(join(dir, 'kazma-data'));
  return { fake, llm, config: path, dir };
}

const env = { DATABASE_URL: undefined, REDIS_URL: undefined };

describe('kazma with Slack, as a process', () => {
  it('doctor checks the token with auth.test, and names the fix when it is wrong', async () => {
    const good = await setup();
    const ok = await runKazma(['doctor', '--config', good.config], { env });
    expect(ok.stdout).toMatch(
      /✓ slack token: bot @kazma \(UBOTKAZMA\) in workspace "Fake Workspace" answers at http:\/\/127\.0\.0\.1:\d+\/api\//,
    );
    expect(ok.stdout).toMatch(/✓ slack mode: http mode: Slack must post .* to https:\/\/YOUR_HOST\/slack\/events/);
    expect(ok.code).toBe(0);
    const bad = await setup('xoxb-revoked');
    const failed = await runKazma(['doctor', '--config', bad.config], { env });
    expect(failed.stdout).toMatch(
      /✗ slack token: Slack refused auth\.test: invalid_auth\. The bot token is wrong or revoked/,
    );
    expect(failed.code).toBe(1);
  });

  it('message → danger tool → card → the approver clicks → the tool runs once → reply; the card says who approved', async () => {
    const { fake, llm, config, dir } = await setup();
    llm.script({ toolCalls: [{ name: 'write_file', args: { path: 'note.txt', content: 'x', append: true } }] });
    const kazma = new KazmaProcess(['start', '--config', config], { env });
    cleanup.push(() => kazma.kill('SIGKILL'));
    const url = `http://127.0.0.1:${await kazma.port()}/slack/events`;
    await kazma.waitForLog((line) => line.msg === 'slack started');

    expect(
      (await fake.signer.sendMessage(url, { channel: dmOf(MAYA), user: MAYA.id, text: 'please write the note' }))
        .message.status,
    ).toBe(200);
    const card = await eventually(
      async () => fake.messages(dmOf(MAYA)),
      (ms) => ms.find((m) => m.blocks?.some((b) => b.type === 'actions')),
      'the approval card',
    );
    const once = (card.blocks!.find((b) => b.type === 'actions')!.elements as Array<{ action_id: string }>).find((e) =>
      e.action_id.endsWith(':once'),
    )!;
    expect(
      (
        await fake.signer.sendBlockAction(url, {
          channel: dmOf(MAYA),
          user: MAYA.id,
          messageTs: card.ts,
          actionId: once.action_id,
        })
      ).status,
    ).toBe(200);

    await eventually(
      async () => fake.messages(dmOf(MAYA)),
      (ms) => ms.find((m) => m.text === 'done: appended 1 bytes to note.txt'),
      'the reply after the tool ran',
    );
    const edited = await eventually(
      async () => fake.messages(dmOf(MAYA)),
      (ms) => ms.find((m) => m.ts === card.ts && !m.blocks?.some((b) => b.type === 'actions')),
      'the edited card',
    );
    expect(JSON.stringify(edited.blocks)).toMatch(/Approved once by Maya on Slack at \d\d:\d\d UTC/);
    expect(readFileSync(join(dir, 'kazma-data', 'workspace', 'note.txt'), 'utf8')).toBe('x');

    kazma.kill('SIGTERM');
    expect((await kazma.exited).code).toBe(0);
  });
});

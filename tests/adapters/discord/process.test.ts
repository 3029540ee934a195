// End to end through the real process: `kazma doctor` and `kazma start` spawned with a kazma.yaml whose
// discord.api points at the fake Discord and model.base_url at the fake LLM (both in this process).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../../helpers/eventually.ts';
import { startFakeDiscord, type FakeDiscord } from '../../fakes/discord/fake-discord.ts';
import { startFakeLlm, type FakeLlm } from '../../fakes/llm-server.ts';
import { seedPgliteDataDir } from '../../helpers/databases.ts';
import { KazmaProcess, runKazma, writeConfig } from '../../helpers/kazma-process.ts';
import { DM_OF, MAYA } from './harness.ts';
import { visible } from './visible.ts';

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const ENV = { DATABASE_URL: undefined, REDIS_URL: undefined };

async function setup(token?: string): Promise<{ fake: FakeDiscord; llm: FakeLlm; config: string; dir: string }> {
  const fake = await startFakeDiscord();
  const llm = await startFakeLlm();
  cleanup.push(
    () => fake.close(),
    () => llm.close(),
  );
  const { dir, path } = writeConfig(`
http: { port: 0 }
model: { name: fake-model, base_url: "${llm.baseURL}", max_retries: 1 }
access: { operators: [{ name: Maya, discord: "${MAYA.id}" }] }
discord: { enabled: true, token: "${token ?? fake.token}", api: "${fake.api}" }
shutdown: { timeout: 5s }
`);
  await seedPgliteDataDir(join(dir, 'kazma-data'));
  return { fake, llm, config: path, dir };
}

describe('kazma with Discord, as a process', () => {
  it('doctor checks the token and the application’s Message Content intent', async () => {
    const { config, fake } = await setup();
    const { code, stdout } = await runKazma(['doctor', '--config', config], { env: ENV });
    expect(stdout).toContain(`✓ discord token: bot @kazma (id ${fake.bot.id}) answers at ${fake.api}`);
    // The fake's application has no intent flags, as a fresh application on Discord: doctor says how to fix it.
    expect(stdout).toMatch(
      /✗ discord application: application \d+ \(kazma\) has the Message Content intent off: turn on "Message Content Intent"/,
    );
    expect(code).toBe(1);
  });

  it('doctor names the fix for a wrong token', async () => {
    const { config } = await setup('not-the-token');
    const { code, stdout } = await runKazma(['doctor', '--config', config], { env: ENV });
    expect(stdout).toMatch(
      /✗ discord token: Discord refused GET \/users\/@me: 401: Unauthorized\. The bot token is wrong or was reset/,
    );
    expect(code).toBe(1);
  });

  it('message → danger tool → card → the approver taps → the tool runs once → reply; the card says who approved', async () => {
    const { fake, llm, config, dir } = await setup();
    llm.script({ toolCalls: [{ name: 'write_file', args: { path: 'note.txt', content: 'x', append: true } }] });
    const kazma = new KazmaProcess(['start', '--config', config], { env: ENV });
    cleanup.push(() => kazma.kill('SIGKILL'));
    await kazma.waitForLog((line) => line.msg === 'discord started');
    await kazma.waitForLog((line) => line.msg === 'kazma started'); // from here SIGTERM stops it gracefully

    const dm = DM_OF[MAYA.id]!;
    fake.sendUserMessage({ channelId: dm, author: MAYA, content: 'please write the note', guild: false });
    const card = await eventually(
      async () => fake.messages(dm),
      (ms) => ms.find((m) => m.components.length > 0),
      'the approval card',
    );
    expect(visible(card.content).text).toContain('write_file');
    const once = card.components[0].components.find((b: { custom_id: string }) => b.custom_id.endsWith(':once'));
    const click = fake.clickButton({ channelId: dm, messageId: card.id, user: MAYA, customId: once.custom_id });

    await eventually(
      async () => fake.messages(dm),
      (ms) => ms.find((m) => m.content === 'done: appended 1 bytes to note.txt'),
      'the reply after the tool ran',
    );
    const edited = await eventually(
      async () => fake.messages(dm),
      (ms) => ms.find((m) => m.id === card.id && m.components.length === 0),
      'the edited card',
    );
    expect(visible(edited.content).text).toMatch(/Approved once by Maya on Discord at \d\d:\d\d UTC/);
    expect(fake.interactionResponses(click.id).callbacks.map((c) => c.type)).toEqual([6]);
    expect(readFileSync(join(dir, 'kazma-data', 'workspace', 'note.txt'), 'utf8')).toBe('x');
    expect(fake.calls.count('POST /channels/:id/typing')).toBeGreaterThanOrEqual(1);
    expect(fake.commands().map((c) => (c as { name: string }).name)).toEqual(
      expect.arrayContaining(['help', 'status', 'config']),
    );

    kazma.kill('SIGTERM');
    const exited = await Promise.race([kazma.exited, new Promise<undefined>((r) => setTimeout(r, 30_000, undefined))]);
    if (!exited)
      throw new Error(
        `kazma did not exit within 30 s of SIGTERM; its log ends:\n${kazma.stdout.slice(-4000)}\n${kazma.stderr.slice(-2000)}`,
      );
    expect(exited.code).toBe(0);
  });
});

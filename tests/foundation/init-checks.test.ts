// The checks `kazma init` runs on Slack and Discord answers are doctor's own, against the fake platforms;
// what it says to do next names the application's invite URL.
import { afterEach, describe, expect, it } from 'vitest';
import { checkDiscord, checkSlack } from '../../src/cli/init/checks.ts';
import { discordInviteUrl, slackAfter } from '../../src/cli/init/steps.ts';
import { startFakeDiscord } from '../fakes/discord/fake-discord.ts';
import { startFakeSlack } from '../fakes/slack/index.ts';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0)) await step();
});

describe('kazma init: Slack and Discord checks', () => {
  it('Slack: auth.test passes with the right token and fails naming auth.test with a wrong one', async () => {
    const fake = await startFakeSlack();
    cleanup.push(() => fake.close());
    const answers = { token: fake.botToken, signingSecret: fake.signingSecret, appToken: '', apiUrl: fake.apiUrl };
    expect(await checkSlack(answers)).toMatchObject({ name: 'slack token', status: 'ok' });
    const wrong = await checkSlack({ ...answers, token: 'xoxb-wrong' });
    expect(wrong).toMatchObject({ name: 'slack token', status: 'fail' });
    expect(wrong.detail).toContain('auth.test');
    expect(slackAfter(false, 8787)).toContain('https://YOUR_HOST/slack/events');
  });

  it("Discord: the token answers, the application's intent is checked, and its id gives the invite URL", async () => {
    const fake = await startFakeDiscord();
    cleanup.push(() => fake.close());
    const found = await checkDiscord({ token: fake.token, applicationId: '', api: fake.api });
    expect(found.results.map((r) => [r.name, r.status])).toEqual([
      ['discord token', 'ok'],
      ['discord application', 'fail'], // the fake's application has Message Content off, as a new one has
    ]);
    expect(found.results[1]!.detail).toContain('Message Content Intent');
    expect(found.appId).toBe(fake.applicationId);
    expect(discordInviteUrl(found.appId!)).toBe(
      `https://discord.com/oauth2/authorize?client_id=${fake.applicationId}&scope=bot%20applications.commands` +
        '&permissions=274877975552',
    );
  });
});

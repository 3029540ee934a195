// `kazma doctor` checks for Slack: does the bot token work (auth.test), and does the configured mode
// have what it needs. Each check resolves with what is fine or throws what is wrong and how to fix it.
import { assertPlatformSection, type KazmaConfig } from '../../core/config/index.ts';
import type { DoctorCheck } from '../../core/doctor.ts';
import { createLogger } from '../../core/log/index.ts';
import { createWebClient } from './client.ts';
import { slackError } from './errors.ts';
import { EVENTS_PATH } from './receiver.ts';

/** The checks for an enabled Slack: the token, then the mode's credentials. */
export function slackChecks(config: KazmaConfig['slack']): DoctorCheck[] {
  return [
    {
      name: 'slack token',
      run: async () => {
        assertPlatformSection('slack', config); // the token and the mode's credentials, as config check judges them
        // One attempt, quickly: doctor reports, it does not wait out an outage.
        const client = createWebClient({
          token: config.token,
          apiUrl: config.api_url,
          logger: createLogger({ level: 'silent' }),
          retry: { retries: 0, requestTimeoutMs: 10_000 },
        });
        try {
          const auth = await client.auth.test();
          return `bot @${auth.user} (${auth.user_id}) in workspace "${auth.team}" answers at ${config.api_url}`;
        } catch (error) {
          throw slackError('auth.test', error, config.api_url);
        }
      },
    },
    {
      name: 'slack mode',
      run: async () => {
        // The mode's credentials were checked with the token above; this says what the mode needs of Slack.
        if (config.mode === 'socket')
          return 'socket mode: Kazma connects out to Slack with slack.app_token (no public URL needed)';
        return (
          `http mode: Slack must post events, interactivity and the slash command to ` +
          `https://YOUR_HOST${EVENTS_PATH}`
        );
      },
    },
  ];
}

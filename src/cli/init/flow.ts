// The questions of `kazma init` in order, each answer checked as `kazma doctor` would check it: a failed
// check is asked again at a terminal (or kept, if the person says so) and stops a script.
import { type DoctorResult, doctorLine } from '../../core/doctor.ts';
import {
  DEFAULT_API,
  type DiscordAnswers,
  type InitFlags,
  type InitPlatform,
  type ModelAnswers,
  modelAnswers,
  platformChoice,
  type SlackAnswers,
  type TelegramAnswers,
} from './answers.ts';
import { checkDiscord, checkModel, checkSlack, checkTelegram } from './checks.ts';
import type { Prompter } from './prompter.ts';
import { BEFORE, discordInviteUrl, slackAfter } from './steps.ts';

/** A check failed where nobody can be asked again: exit 1, nothing written. */
export class InitCheckError extends Error {}

export interface Gathered {
  platforms: InitPlatform[];
  model: ModelAnswers;
  telegram?: TelegramAnswers & { username?: string };
  slack?: SlackAnswers;
  discord?: DiscordAnswers;
  /** What to do next on each platform's side, said at the end. */
  after: string[];
}

interface Step<T> {
  /** The answers; `again` is true on a second try (flags are not asked twice). */
  get(again: boolean): Promise<T>;
  check(value: T): Promise<DoctorResult[]>;
}

/** Asks and checks until the check passes (or the person keeps what failed). */
async function checked<T>(step: Step<T>, ask: Prompter | undefined, skip: boolean, out: (line: string) => void) {
  for (let again = false; ; again = true) {
    const value = await step.get(again);
    if (skip) return value;
    const results = await step.check(value);
    for (const result of results) out(doctorLine(result));
    const failed = results.find((r) => r.status === 'fail');
    if (!failed) return value;
    if (!ask || ask.ended) throw new InitCheckError(`${failed.name} failed: nothing was written`);
    if (await ask.confirm('Keep it anyway', false)) return value;
  }
}

/** The model, then each chosen platform, checked. */
export async function gather(options: {
  flags: InitFlags;
  ask: Prompter | undefined;
  port: number;
  out: (line: string) => void;
}): Promise<Gathered> {
  const { flags, ask, out } = options;
  const skip = flags['skip-checks'] === true;
  const secret = (question: string) => ask?.ask(question, { secret: true }) ?? Promise.resolve('');
  const model = await checked(
    { get: (again) => modelAnswers(again ? {} : flags, ask), check: async (m) => [await checkModel(m)] },
    ask,
    skip,
    out,
  );
  const platforms = await platformChoice(flags, ask);
  const gathered: Gathered = { model, platforms, after: [] };
  const intro = (platform: InitPlatform, again: boolean) => ask && !again && out(BEFORE[platform]);
  for (const platform of platforms) {
    if (platform === 'telegram') {
      let username: string | undefined;
      const telegram = await checked<TelegramAnswers>(
        {
          get: async (again) => (
            intro('telegram', again),
            {
              token: (!again && flags['telegram-token']) || (await secret('Telegram bot token (not shown)')),
              apiRoot: flags['telegram-api-root'] ?? DEFAULT_API.telegram,
            }
          ),
          check: async (t) => {
            const result = await checkTelegram(t);
            username = result.username;
            return [result];
          },
        },
        ask,
        skip,
        out,
      );
      gathered.telegram = { ...telegram, ...(username && { username }) };
      gathered.after.push(
        username
          ? `Telegram: open https://t.me/${username} and write to your bot.`
          : 'Telegram: write to your bot in Telegram.',
      );
    } else if (platform === 'slack') {
      gathered.slack = await checked<SlackAnswers>(
        {
          get: async (again) => {
            intro('slack', again);
            const token = (!again && flags['slack-bot-token']) || (await secret('Slack bot token, xoxb-… (not shown)'));
            const appToken =
              (again ? undefined : flags['slack-app-token']) ??
              (await secret('Slack app-level token xapp-… for Socket Mode (not shown; empty: HTTP mode)'));
            const signingSecret =
              (!again && flags['slack-signing-secret']) ||
              (appToken ? '' : await secret('Slack signing secret (not shown)'));
            return { token, appToken, signingSecret, apiUrl: flags['slack-api-url'] ?? DEFAULT_API.slack };
          },
          check: async (s) => [await checkSlack(s)],
        },
        ask,
        skip,
        out,
      );
      gathered.after.push(slackAfter(gathered.slack.appToken !== '', options.port));
    } else {
      let appId: string | undefined;
      const discord = await checked<DiscordAnswers>(
        {
          get: async (again) => (
            intro('discord', again),
            {
              token: (!again && flags['discord-token']) || (await secret('Discord bot token (not shown)')),
              applicationId: flags['discord-application-id'] ?? '',
              api: flags['discord-api'] ?? DEFAULT_API.discord,
            }
          ),
          check: async (d) => {
            const found = await checkDiscord(d);
            appId = found.appId;
            return found.results;
          },
        },
        ask,
        skip,
        out,
      );
      gathered.discord = { ...discord, applicationId: discord.applicationId || appId || '' };
      gathered.after.push(
        gathered.discord.applicationId
          ? `Discord: add the bot to your server: ${discordInviteUrl(gathered.discord.applicationId)}`
          : 'Discord: add the bot to your server (OAuth2 → URL Generator, scopes bot and applications.commands).',
      );
    }
  }
  return gathered;
}

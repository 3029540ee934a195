// The checks `kazma init` runs on what it was given: the very checks `kazma doctor` runs (the model probe,
// each platform adapter's doctor checks), on the values before they are written anywhere.
import { discordChecks } from '../../adapters/discord/index.ts';
import { slackChecks } from '../../adapters/slack/index.ts';
import { telegramChecks } from '../../adapters/telegram/index.ts';
import { callSite, isModelConfigured, probeModel, unconfiguredWarning } from '../../core/agent/index.ts';
import { configSchema } from '../../core/config/index.ts';
import { type DoctorResult, runDoctorCheck } from '../../core/doctor.ts';
import type { DiscordAnswers, ModelAnswers, SlackAnswers, TelegramAnswers } from './answers.ts';

/** The model answers with the key (doctor's probe); a warning when none was given. */
export async function checkModel(model: ModelAnswers): Promise<DoctorResult> {
  const entry = { provider: model.provider, name: model.name, base_url: model.baseUrl, api_key: model.apiKey };
  if (!isModelConfigured(entry)) return { name: 'model', ...unconfiguredWarning(entry) };
  return runDoctorCheck({
    name: 'model',
    run: () => probeModel(entry, callSite(entry, 'model', {}), { timeoutMs: 15_000 }),
  });
}

/** The bot token works (getMe); `username` is the bot's, for the t.me link. */
export async function checkTelegram(answers: TelegramAnswers): Promise<DoctorResult & { username?: string }> {
  const section = configSchema.shape.telegram.parse({ enabled: true, token: answers.token, api_root: answers.apiRoot });
  const result = await runDoctorCheck(telegramChecks(section)[0]!);
  const username = /bot @(\S+)/.exec(result.detail)?.[1];
  return { ...result, ...(result.status === 'ok' && username && { username }) };
}

/** The bot token and the mode's credentials work (auth.test). */
export async function checkSlack(answers: SlackAnswers): Promise<DoctorResult> {
  const section = configSchema.shape.slack.parse({
    enabled: true,
    token: answers.token,
    signing_secret: answers.signingSecret,
    app_token: answers.appToken,
    mode: answers.appToken ? 'socket' : 'http',
    api_url: answers.apiUrl,
  });
  return runDoctorCheck(slackChecks(section)[0]!);
}

/** The bot token works (/users/@me), then the application and its Message Content intent; its id, read. */
export async function checkDiscord(answers: DiscordAnswers): Promise<{ results: DoctorResult[]; appId?: string }> {
  const section = configSchema.shape.discord.parse({
    enabled: true,
    token: answers.token,
    application_id: answers.applicationId,
    api: answers.api,
  });
  const [token, application] = discordChecks(section);
  const first = await runDoctorCheck(token!);
  if (first.status === 'fail') return { results: [first] };
  const second = await runDoctorCheck(application!);
  const appId =
    answers.applicationId || /application (\d+)/.exec(second.detail)?.[1] || /id (\d+)/.exec(first.detail)?.[1];
  return { results: [first, second], ...(appId && { appId }) };
}

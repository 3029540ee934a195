// What an enabled platform's section of kazma.yaml must hold, written once. Loading the configuration
// applies these rules (so `kazma config check` names the key and the fix before anything starts), and
// the adapters and `kazma doctor` reuse them instead of keeping their own copies of the rule text.
import { CHAT_PLATFORM_IDS, CHAT_PLATFORMS, type ChatPlatform } from '../surface/index.ts';
import { ConfigError } from '../errors.ts';
import { isVaultPointer } from '../secrets/index.ts';
import type { KazmaConfig } from './schema.ts';

/** Rules beyond the bot token, per platform; each issue is `key.path: reason (fix)`. */
const SECTION_RULES: { [P in ChatPlatform]: (section: KazmaConfig[P]) => string[] } = {
  telegram: (telegram) =>
    telegram.mode === 'webhook' && !telegram.webhook_secret
      ? ['telegram.webhook_secret: required when telegram.mode is webhook']
      : [],
  slack: (slack) => {
    const issues: string[] = [];
    if (slack.mode === 'http' && !slack.signing_secret) {
      issues.push(
        'slack.signing_secret: required when slack.mode is http (set SLACK_SIGNING_SECRET from Basic Information → ' +
          'App Credentials)',
      );
    }
    // Socket Mode connects with an app-level token; a bot token (xoxb-…) there fails only at connect time.
    // A vault:// pointer is judged once resolved (core/vault runs these rules again on the secret).
    if (slack.mode === 'socket' && !isVaultPointer(slack.app_token) && !slack.app_token.startsWith('xapp-')) {
      issues.push(
        'slack.app_token: must be an app-level token (xapp-…) with connections:write when slack.mode is socket (set ' +
          'SLACK_APP_TOKEN)',
      );
    }
    return issues;
  },
  discord: () => [],
};

/**
 * What is wrong with a platform's section, judged as if it were enabled (empty when nothing is).
 * @example enabledPlatformIssues('slack', { ...slack, mode: 'socket', app_token: '' })
 * // ['slack.app_token: must be an app-level token (xapp-…) with connections:write when slack.mode is socket
 * //   (set SLACK_APP_TOKEN)']
 */
export function enabledPlatformIssues<P extends ChatPlatform>(platform: P, section: KazmaConfig[P]): string[] {
  const { tokenEnv, tokenHint } = CHAT_PLATFORMS[platform];
  const issues = section.token
    ? []
    : [`${platform}.token: required when ${platform}.enabled is true (set ${tokenEnv} to ${tokenHint})`];
  const rules = SECTION_RULES[platform] as (section: KazmaConfig[P]) => string[];
  return [...issues, ...rules(section)];
}

/** The issues of every enabled platform, in the order of CHAT_PLATFORMS. */
export function platformIssues(config: KazmaConfig): string[] {
  return CHAT_PLATFORM_IDS.flatMap((platform) =>
    config[platform].enabled ? enabledPlatformIssues(platform, config[platform]) : [],
  );
}

/**
 * Throws ConfigError naming every issue of a platform's section: for code handed a section that did
 * not come through `loadConfig` (an adapter built directly, `kazma doctor`'s own checks).
 */
export function assertPlatformSection<P extends ChatPlatform>(platform: P, section: KazmaConfig[P]): void {
  const issues = enabledPlatformIssues(platform, section);
  if (issues.length > 0) throw new ConfigError(issues);
}

/**
 * The keys that make an enabled platform receive its events on `http.port` (`slack.mode http`): a process
 * that holds them cannot step around a taken port, and its error names them.
 */
export function receiversOnHttpPort(config: Pick<KazmaConfig, 'telegram' | 'slack'>): string[] {
  const keys: string[] = [];
  if (config.telegram.enabled && config.telegram.mode === 'webhook') keys.push('telegram.mode webhook');
  if (config.slack.enabled && config.slack.mode === 'http') keys.push('slack.mode http');
  return keys;
}

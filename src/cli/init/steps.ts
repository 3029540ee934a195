// What a person does on each platform's side, said before `kazma init` asks for its token and after.
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../core/package-root.ts';

/** View Channels, Send Messages, Read Message History, Send Messages in Threads (docs/platforms/discord.md). */
const DISCORD_PERMISSIONS = (1n << 10n) | (1n << 11n) | (1n << 16n) | (1n << 38n);

/** The Slack app manifest shipped with Kazma (in the repository and the npm package). */
export const SLACK_MANIFEST = join(PACKAGE_ROOT, 'slack-app-manifest.yaml');

export const BEFORE = {
  telegram:
    'Telegram: talk to @BotFather (https://t.me/BotFather), send /newbot, pick a name and a username ending ' +
    'in "bot"; it answers with the token.',
  slack:
    'Slack: at https://api.slack.com/apps choose Create New App → From a manifest and paste\n' +
    `  ${SLACK_MANIFEST}\n` +
    '  (replace YOUR_HOST with the public host that reaches Kazma, or set socket_mode_enabled: true for Socket ' +
    'Mode). Install it to your workspace, then copy the Bot User OAuth Token (xoxb-…, OAuth & Permissions), ' +
    'the Signing Secret (Basic Information) and, for Socket Mode, an app-level token (xapp-…) with ' +
    'connections:write.',
  discord:
    'Discord: at https://discord.com/developers/applications choose New Application; under Bot, Reset Token ' +
    'and copy it, and turn on Message Content Intent (Privileged Gateway Intents).',
} as const;

/** The URL that adds the bot of application `appId` to a server, with the permissions Kazma uses. */
export function discordInviteUrl(appId: string): string {
  return (
    `https://discord.com/oauth2/authorize?client_id=${appId}&scope=bot%20applications.commands` +
    `&permissions=${DISCORD_PERMISSIONS}`
  );
}

/** Slack's side after the token works: where events come in. */
export function slackAfter(socket: boolean, port: number): string {
  return socket
    ? 'Slack: Socket Mode, so Kazma connects out; no public URL is needed. Write to the app in its Messages tab.'
    : `Slack: set the Request URL of Event Subscriptions, Interactivity and the /kazma command to ` +
        `https://YOUR_HOST/slack/events, a public address that reaches Kazma's port ${port}. Then write to the ` +
        'app in its Messages tab, or /invite it to a channel.';
}

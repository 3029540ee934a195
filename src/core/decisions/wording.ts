// How every decision card and every loser's answer words who decided, where and when — one place, so
// "Approved once by maya on Slack at 12:03 UTC" and "Retry by maya on Slack at 12:03 UTC" read alike.
import { platformLabel } from '../chat/platforms.ts';

/** "on Slack", "on the console", "on the API". */
export function platformName(platform: string | undefined): string {
  return platform ? platformLabel(platform) : 'an unknown platform';
}

/** `12:03 UTC`. */
export function clock(at: Date | undefined): string {
  return at ? `${at.toISOString().slice(11, 16)} UTC` : 'an unknown time';
}

/** "by maya on Slack at 12:03 UTC". */
export function decidedBy(who: string | undefined, platform: string | undefined, at: Date | undefined): string {
  return `by ${who ?? 'someone'} on ${platformName(platform)} at ${clock(at)}`;
}

// How every decision card and every loser's answer words who decided, where and when — one place, so
// "Approved once by maya on Slack at 12:03 UTC" and "Retry by maya on Slack at 12:03 UTC" read alike.
import { platformLabel, type Actor } from '../surface/index.ts';
import type { StoredActor } from '../db/index.ts';

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

/** An actor as the audit trails and decision rows keep it: who, where, and their operator name if any. */
export function storedActor(actor: Actor, operator?: string): StoredActor {
  return {
    platform: actor.platform,
    id: actor.id,
    ...(actor.displayName && { displayName: actor.displayName }),
    ...(operator && { operator }),
  };
}

/** The actor a stored one was (an unknown one when none was stored). */
export function actorFromStored(stored: StoredActor | null): Actor {
  if (!stored) return { platform: 'unknown', id: 'unknown' };
  return {
    platform: stored.platform,
    id: stored.id,
    ...((stored.displayName ?? stored.operator) && { displayName: stored.displayName ?? stored.operator }),
  };
}

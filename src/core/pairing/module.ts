import type { ChatCommand, SubcommandBranch } from '../commands/index.ts';
import type { Clock } from '../clock.ts';
import type { LoadedConfig } from '../config/index.ts';
import type { Db } from '../db/index.ts';
import { storedActor } from '../decisions/index.ts';
import type { SweepStep } from '../jobs/index.ts';
import type { Logger } from '../log/index.ts';
import type { ReplyOutbox } from '../outbox/index.ts';
import { RuntimeSettings } from '../settings/index.ts';
import type { Actor, ChatRef, InboundEvent } from '../surface/index.ts';
import { pairCommand, usersSubcommand } from './commands.ts';
import { PairingDesk } from './desk.ts';
import { claimCodeOf, OperatorClaims } from './operator-claims.ts';
import { PairedUsers } from './paired-users.ts';
import { PairingStore } from './store.ts';

/** What {@link createPairing} needs. */
export interface PairingDeps {
  loaded: LoadedConfig;
  db: Db;
  /** The operator an actor is (the audit names them); made before the access check, which reads `paired`. */
  operatorName: (actor: Actor) => string | undefined;
  replies: ReplyOutbox;
  logger: Logger;
  clock: Clock;
  onDbError?: (error: unknown) => void;
}

/** DM pairing: who was let in, what a stranger writing in private is told, `/pair` and `/config users`. */
export interface PairingModule {
  /** The paired people, for the access check (read before the chat module takes events). */
  paired: PairedUsers;
  /** The operators who claimed a `kazma init` code, for the access check. */
  claims: OperatorClaims;
  /**
   * What a refused event's sender is told instead of the refusal: an operator claim's outcome, else (with
   * `access.pairing`) a pairing code; undefined: the refusal.
   */
  answer: (event: InboundEvent) => Promise<{ tell?: string } | undefined>;
  command: ChatCommand;
  users: SubcommandBranch;
  sweep: SweepStep;
  stop(): void;
}

/** How long a used or expired code is kept, so `/pair` can say which it was. */
const KEEP_ENDED_MS = 24 * 60 * 60_000;

/** How often a process picks up pairings another process made. */
const FOLLOW_MS = 5_000;

export async function createPairing({ loaded, db, operatorName, replies, logger, clock, onDbError }: PairingDeps) {
  const store = new PairingStore(db);
  const paired = new PairedUsers({ store, logger, ...(onDbError && { onError: onDbError }) });
  await paired.load();
  paired.follow(FOLLOW_MS);
  const claims = new OperatorClaims({ db, logger, ...(onDbError && { onError: onDbError }) });
  await claims.load();
  claims.follow(FOLLOW_MS);
  const settings = new RuntimeSettings(db);
  const desk = new PairingDesk({
    store,
    logger,
    clock,
    audit: (event, detail) =>
      settings.audit({
        actor: storedActor(event.actor),
        chat: event.chat,
        command: 'pairing code',
        outcome: 'changed',
        detail,
      }),
  });
  const port = {
    store,
    paired,
    configured: loaded.config.access.users,
    audit: async (
      ctx: Parameters<Parameters<typeof pairCommand>[0]['audit']>[0],
      entry: { command: string; outcome: 'changed' | 'refused'; detail: string },
      tx?: Db,
    ) => settings.audit({ ...entry, actor: storedActor(ctx.actor, operatorName(ctx.actor)), chat: ctx.chat }, tx),
    welcome: (chat: string, key: string, text: string) => replies.deliver(chat as ChatRef, [{ key, text }]),
  };
  const module: PairingModule = {
    paired,
    claims,
    answer: async (event: InboundEvent) => {
      const code = claimCodeOf(event);
      const claimed = code && (await claimAnswer(claims, code, event, settings));
      if (claimed) return claimed;
      return loaded.config.access.pairing ? desk.answer(event) : undefined;
    },
    command: pairCommand(port),
    users: usersSubcommand(port),
    // Kept a day past expiry, so a late `/pair` is told the code expired (or was used), not that none exists.
    sweep: { name: 'pairing codes', run: () => store.prune(new Date(clock.now().getTime() - KEEP_ENDED_MS)) },
    stop: () => {
      paired.stop();
      claims.stop();
    },
  };
  return module;
}

/** A claim code's outcome, told to its sender; undefined when the code is not a claim code (maybe a pairing one). */
async function claimAnswer(
  claims: OperatorClaims,
  code: string,
  event: InboundEvent,
  settings: RuntimeSettings,
): Promise<{ tell: string } | undefined> {
  const user = `${event.platform}:${event.actor.id}`;
  const taken = await claims.claim(code, user);
  if ('refused' in taken) {
    if (taken.refused === 'unknown') return undefined;
    return {
      tell: `That operator code ${taken.refused === 'used' ? 'was already used' : 'expired'}: run kazma init again.`,
    };
  }
  await settings.audit({
    actor: storedActor(event.actor),
    chat: event.chat,
    command: 'operator claim',
    outcome: 'changed',
    detail: `${user} claimed operator ${taken.operator}`,
  });
  return {
    tell:
      `✅ You are now the operator ${taken.operator} (${user}): you may chat, approve tool calls and run /config. ` +
      'Send /help to begin.',
  };
}

// `/pair <code>` and `/config users`: an operator lets in a stranger who was given a pairing code, lists
// the people let in that way (and those kazma.yaml lists), and removes one. Every change is audited.
import type { ChatCommand, CommandContext, SubcommandBranch } from '../commands/index.ts';
import type { Db } from '../db/index.ts';
import { normaliseCode } from './codes.ts';
import type { PairedUsers } from './paired-users.ts';
import type { PairingStore, RedeemRefusal } from './store.ts';

/** What the commands use. */
export interface PairingCommandsPort {
  store: PairingStore;
  paired: PairedUsers;
  /** `access.users` of kazma.yaml (listed, never removable from chat). */
  configured: readonly string[];
  audit(
    ctx: CommandContext,
    entry: { command: string; outcome: 'changed' | 'refused'; detail: string },
    tx?: Db,
  ): Promise<void>;
  /** Tells the person let in, once (`key` makes a second delivery of the same welcome a no-op). */
  welcome(chat: string, key: string, text: string): Promise<void>;
}

type PairOutcome = { refused: RedeemRefusal | null; user: string; chat: string; name: string | null };

const REFUSED: Record<RedeemRefusal, string> = {
  unknown: 'no such code',
  expired: 'that code has expired (codes last an hour): ask them to write to the bot again for a new one',
  used: 'that code was used already',
};

async function pair(port: PairingCommandsPort, ctx: CommandContext): Promise<void> {
  const typed = ctx.args.join('');
  const code = normaliseCode(typed);
  const by = ctx.actor.displayName ?? `${ctx.actor.platform}:${ctx.actor.id}`;
  // Recorded with the change, so the event taken up again after a crash answers the same.
  const outcome = await ctx.once('pair', async (tx): Promise<PairOutcome> => {
    const redeemed = code ? await port.store.redeem(code, by, tx) : { refused: 'unknown' as const };
    if ('refused' in redeemed) {
      await port.audit(ctx, { command: '/pair', outcome: 'refused', detail: `${redeemed.refused}: ${typed}` }, tx);
      return { refused: redeemed.refused, user: '', chat: '', name: null };
    }
    await port.audit(ctx, { command: '/pair', outcome: 'changed', detail: redeemed.user }, tx);
    return { refused: null, user: redeemed.user, chat: redeemed.chat, name: redeemed.displayName };
  });
  if (outcome.refused) return ctx.reply(`⛔ Not paired: ${REFUSED[outcome.refused]}.`);
  await port.paired.change(outcome.user, true, async () => {});
  await port.welcome(
    outcome.chat,
    `paired-${code}`,
    '✅ You are in: an operator let you in. Write to me any time; /help lists what you can do.',
  );
  return ctx.reply(
    `✅ ${outcome.name ? `${outcome.name} (${outcome.user})` : outcome.user} may now talk to Kazma. ` +
      'See everyone let in with /config users.',
  );
}

/** `/pair <code>` (operators): lets in the stranger the code was given to. */
export function pairCommand(port: PairingCommandsPort): ChatCommand {
  return {
    name: 'pair',
    summary: 'let in someone who sent you their pairing code (operators): /pair <code>',
    operatorOnly: true,
    serial: false,
    writes: true,
    run: (ctx) =>
      ctx.args.length === 0 ? ctx.reply('Usage: /pair <code> (the code the person was given).') : pair(port, ctx),
  };
}

async function listUsers(port: PairingCommandsPort, ctx: CommandContext): Promise<void> {
  const paired = await port.store.list();
  const lines = [
    ...port.configured.map((user) => `• ${user} — in kazma.yaml (access.users)`),
    ...paired.map(
      (p) =>
        `• ${p.user}${p.displayName ? ` (${p.displayName})` : ''} — paired by ${p.pairedBy} on ` +
        `${p.pairedAt.toISOString().slice(0, 10)}`,
    ),
  ];
  if (lines.length === 0) return ctx.reply('No users besides the operators. Let one in with /pair <code>.');
  return ctx.reply(['Users:', ...lines, 'Remove a paired one with /config users remove <platform>:<id>.'].join('\n'));
}

async function removeUser(port: PairingCommandsPort, ctx: CommandContext, user: string): Promise<void> {
  if (port.configured.includes(user))
    return ctx.reply(`${user} is listed in kazma.yaml (access.users): remove it there.`);
  let removed = false;
  await port.paired.change(user, false, async () => {
    removed = await ctx.once(`users remove ${user}`, async (tx) => {
      const gone = await port.store.remove(user, tx);
      if (gone) await port.audit(ctx, { command: '/config users remove', outcome: 'changed', detail: user }, tx);
      return gone;
    });
  });
  return ctx.reply(removed ? `${user} may no longer talk to Kazma.` : `${user} was not paired (see /config users).`);
}

/** `/config users` and `/config users remove <platform>:<id>`. */
export function usersSubcommand(port: PairingCommandsPort): SubcommandBranch {
  return {
    subcommands: {
      list: { run: (ctx) => listUsers(port, ctx) },
      remove: {
        params: '<platform>:<id>',
        required: { see: '/config users' },
        run: (ctx, { words: [user] }) => removeUser(port, ctx, user!),
      },
    },
    none: (ctx) => listUsers(port, ctx),
  };
}

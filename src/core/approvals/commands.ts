import type { ChatRef } from '../surface/index.ts';
import { type ChatCommand, type CommandContext, runSubcommands, type StatusSection } from '../commands/index.ts';
import type { DecisionInput } from './decide.ts';
import type { DecideOutcome, Grant } from './port.ts';

/** What the approval commands use of the approvals module. */
export interface ApprovalCommandsPort {
  /** Ids of the questions waiting in `chat`, oldest first. */
  pending(chat: ChatRef): Promise<string[]>;
  /** Posts a waiting question's card again in `chat` (through the outbox, so it is edited with the rest). */
  repost(gateId: string, chat: ChatRef): Promise<boolean>;
  decide(input: DecisionInput): Promise<DecideOutcome>;
  grants(chat: ChatRef): Promise<Grant[]>;
  revokeGrant(id: string): Promise<boolean>;
}

/**
 * `/approvals` — the questions waiting in this chat, each shown again as a card with its buttons;
 * `/approvals grants` — the "always" answers in force here; `/approvals revoke <id>` — end one.
 */
function approvalsCommand(port: ApprovalCommandsPort): ChatCommand {
  const waiting = async (ctx: CommandContext) => {
    const gates = await port.pending(ctx.chat);
    if (gates.length === 0) return ctx.reply('No approvals are waiting in this chat.');
    await ctx.reply(`${gates.length} approval${gates.length === 1 ? '' : 's'} waiting in this chat:`);
    // Through the outbox as cards of their gates (not sent directly), so a decision edits these too.
    for (const gateId of gates) await port.repost(gateId, ctx.chat);
  };
  return {
    name: 'approvals',
    summary: 'show waiting approvals (with buttons); "grants" lists always-grants, "revoke <id>" ends one',
    serial: false,
    run: runSubcommands({
      command: 'approvals',
      ignoreCase: false,
      subcommands: {
        grants: {
          async run(ctx) {
            const grants = await port.grants(ctx.chat);
            if (grants.length === 0) return ctx.reply('No "always" grants are in force in this chat.');
            const lines = grants.map(
              (g) =>
                `${g.id} — ${g.tool}${g.grantedBy ? ` by ${g.grantedBy}` : ''}, until ` +
                `${g.expiresAt.toISOString().slice(11, 16)} UTC`,
            );
            return ctx.reply(
              ['"Always" grants in this chat:', ...lines, 'End one with /approvals revoke <id>.'].join('\n'),
            );
          },
        },
        revoke: {
          params: '<grant id>',
          required: { see: '/approvals grants' },
          async run(ctx, { words: [id] }) {
            if (ctx.role !== 'operator') return ctx.reply('Only operators may revoke grants.');
            return ctx.reply(
              (await port.revokeGrant(id!))
                ? `Revoked ${id}: that call will ask again.`
                : `No grant ${id} is in force.`,
            );
          },
        },
      },
      none: waiting,
      other: waiting,
    }),
  };
}

/** `/approve <gate>` and `/deny <gate> [reason]`: the text fallbacks for the buttons. */
function decisionCommand(port: ApprovalCommandsPort, decision: 'once' | 'deny'): ChatCommand {
  const approve = decision === 'once';
  return {
    name: approve ? 'approve' : 'deny',
    summary: approve
      ? 'approve a waiting tool call once: /approve <gate id>'
      : 'deny a waiting tool call: /deny <gate id> [reason]',
    serial: false,
    async run(ctx) {
      const [gateId, ...rest] = ctx.args;
      if (!gateId)
        return ctx.reply(`Usage: /${approve ? 'approve <gate id>' : 'deny <gate id> [reason]'} (see /approvals).`);
      const reason = rest.join(' ').trim();
      const outcome = await port.decide({
        gateId,
        decision,
        actor: ctx.actor,
        via: ctx.chat,
        // Run again for this event (a stop before its row was done), it is the same attempt, audited once.
        eventKey: ctx.eventKey,
        ...(!approve && reason && { reason }),
      });
      // A refusal or a late decision was already answered privately, by the decider.
      if (outcome.ok) await ctx.reply(`${approve ? 'Approved' : 'Denied'} ${outcome.gate.call.tool}.`);
    },
  };
}

/** The approval commands, around the approvals module's port. */
export function approvalCommands(port: ApprovalCommandsPort): ChatCommand[] {
  return [approvalsCommand(port), decisionCommand(port, 'once'), decisionCommand(port, 'deny')];
}

/** The "pending approvals: N" line of /status. */
export function approvalStatus(port: Pick<ApprovalCommandsPort, 'pending'>): StatusSection {
  return { name: 'approvals', lines: async (chat) => [`pending approvals: ${(await port.pending(chat)).length}`] };
}

import type { ChatRef } from '../surface/index.ts';
import { type ChatCommand, type CommandContext, runSubcommands, type StatusSection } from '../commands/index.ts';
import type { DecisionInput } from './decide.ts';
import type { ApprovalRecord } from './export.ts';
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
  /** Every step of the newest `questions` questions asked in `chat`, oldest first. */
  history(chat: ChatRef, questions: number): Promise<ApprovalRecord[]>;
}

/** At most this many questions in one `/approvals history`. */
const HISTORY_MAX = 20;

/** One step as `/approvals history` shows it: when, which question, what, who and how. */
function historyLine(r: ApprovalRecord): string {
  const when = `${r.at.slice(0, 10)} ${r.at.slice(11, 16)} UTC`;
  const how = [r.decision, r.by && `by ${r.by}`, r.platform && `on ${r.platform}`].filter(Boolean).join(' ');
  const step = r.step === 'requested' ? `requested ${r.tool} ${r.args} by ${r.requester ?? 'someone'}` : r.step;
  return `${when} · ${r.gate} · ${step}${r.step === 'requested' ? '' : ` ${how}`}${r.detail ? ` — ${r.detail}` : ''}`;
}

/**
 * `/approvals` — the questions waiting in this chat, each shown again as a card with its buttons;
 * `/approvals grants` — the "always" answers in force here; `/approvals revoke <id>` — end one;
 * `/approvals history [n]` — every step of the last n questions of this chat.
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
    summary:
      'show waiting approvals (with buttons); "grants" lists always-grants, "revoke <id>" ends one, ' +
      '"history [n]" the last questions step by step',
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
        history: {
          params: '[n]',
          async run(ctx, { words: [n] }) {
            const count = n === undefined ? 5 : Number(n);
            if (!Number.isInteger(count) || count < 1 || count > HISTORY_MAX)
              return ctx.reply(`Usage: /approvals history [n] (n from 1 to ${HISTORY_MAX} questions; default 5).`);
            const records = await port.history(ctx.chat, count);
            if (records.length === 0) return ctx.reply('No approval questions were asked in this chat.');
            const policies = records.filter((r) => r.step === 'requested' && r.policy);
            return ctx.reply(
              [
                `Approval history of this chat (the last ${count} question${count === 1 ? '' : 's'}, every step):`,
                ...records.map(historyLine),
                ...policies.map((r) => `${r.gate}: policy ${r.policy}`),
                'Everything, with who decided where: kazma approvals export.',
              ].join('\n'),
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

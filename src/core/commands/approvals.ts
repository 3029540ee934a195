import type { ChatCommand } from './registry.ts';

/**
 * `/approvals` — the questions waiting in this chat, each shown again as a card with its buttons;
 * `/approvals grants` — the "always" answers in force here; `/approvals revoke <id>` — end one.
 */
export const approvalsCommand: ChatCommand = {
  name: 'approvals',
  summary: 'show waiting approvals (with buttons); "grants" lists always-grants, "revoke <id>" ends one',
  serial: false,
  async run(ctx) {
    const [sub, id] = ctx.args;
    if (sub === 'grants') {
      const grants = await ctx.services.grants(ctx.chat);
      if (grants.length === 0) return ctx.reply('No "always" grants are in force in this chat.');
      const lines = grants.map((g) => `${g.id} — ${g.tool}${g.grantedBy ? ` by ${g.grantedBy}` : ''}, until ${g.expiresAt.toISOString().slice(11, 16)} UTC`);
      return ctx.reply(['"Always" grants in this chat:', ...lines, 'End one with /approvals revoke <id>.'].join('\n'));
    }
    if (sub === 'revoke') {
      if (!id) return ctx.reply('Usage: /approvals revoke <grant id> (see /approvals grants).');
      if (ctx.role !== 'operator') return ctx.reply('Only operators may revoke grants.');
      return ctx.reply((await ctx.services.revokeGrant(id)) ? `Revoked ${id}: that call will ask again.` : `No grant ${id} is in force.`);
    }
    const gates = await ctx.services.pendingApprovalIds(ctx.chat);
    if (gates.length === 0) return ctx.reply('No approvals are waiting in this chat.');
    await ctx.reply(`${gates.length} approval${gates.length === 1 ? '' : 's'} waiting in this chat:`);
    // Through the outbox as cards of their gates (not sent directly), so a decision edits these too.
    for (const gateId of gates) await ctx.services.repostApproval(gateId, ctx.chat);
  },
};

/** `/approve <gate>`: the text fallback for the Approve button. */
export const approveCommand: ChatCommand = {
  name: 'approve',
  summary: 'approve a waiting tool call once: /approve <gate id>',
  serial: false,
  async run(ctx) {
    const [gateId] = ctx.args;
    if (!gateId) return ctx.reply('Usage: /approve <gate id> (see /approvals).');
    await ctx.reply(await ctx.services.decide({ gateId, decision: 'once', actor: ctx.actor, via: ctx.chat }));
  },
};

/** `/deny <gate> [reason]`: the text fallback for the Deny button; the reason reaches the model. */
export const denyCommand: ChatCommand = {
  name: 'deny',
  summary: 'deny a waiting tool call: /deny <gate id> [reason]',
  serial: false,
  async run(ctx) {
    const [gateId, ...reason] = ctx.args;
    if (!gateId) return ctx.reply('Usage: /deny <gate id> [reason] (see /approvals).');
    const text = reason.join(' ').trim();
    await ctx.reply(await ctx.services.decide({ gateId, decision: 'deny', actor: ctx.actor, via: ctx.chat, ...(text && { reason: text }) }));
  },
};

export function approvalCommands(): ChatCommand[] {
  return [approvalsCommand, approveCommand, denyCommand];
}

import { clock, decidedBy } from '../decisions/index.ts';
import { systemClock } from '../clock.ts';
import { type Card, visibleLine, visibleText } from '../surface/index.ts';
import { maskSecrets } from '../secrets/index.ts';
import { DECISIONS, type Decision, type Gate } from './port.ts';

const PREFIX = 'apv';
/** The Show all button's last part: `apv:<gateId>:all`. */
const SHOW_ALL = 'all';
const ACTION_ID = new RegExp(`^${PREFIX}:([A-Za-z0-9_-]{1,32}):(${DECISIONS.join('|')}|${SHOW_ALL})$`);

/** The button id for a decision on a gate: `apv:<gateId>:<decision>` (well under Telegram's 64 bytes). */
export function approvalActionId(gateId: string, decision: Decision): string {
  return `${PREFIX}:${gateId}:${decision}`;
}

/** Reads an approval button id (a decision, or Show all); undefined for any other id. */
export function parseApprovalActionId(
  id: string,
): { gateId: string; decision: Decision } | { gateId: string; showAll: true } | undefined {
  const match = ACTION_ID.exec(id);
  if (!match) return undefined;
  return match[2] === SHOW_ALL
    ? { gateId: match[1]!, showAll: true }
    : { gateId: match[1]!, decision: match[2] as Decision };
}

/** Past this length the short fields come first, so a platform that cuts still shows where a call goes. */
export const SHORT_FIRST_AFTER = 600;

const VERB: Record<Decision, string> = { once: 'Approved once', always: 'Approved always (this chat)', deny: 'Denied' };

/**
 * Masked, pretty arguments, all of them: a card never cuts them itself (each platform fits them with
 * fitCard, saying how much it hides). When long, the short fields come first: a long one (a file's
 * content, a message) must not push the one that says where it goes (a path, a URL, a command, a
 * recipient) off a platform's card.
 */
export function argsPreview(args: unknown, secrets: readonly string[] = []): string {
  // Only what is a secret by its value: a field's name says nothing (`secret_name: prod-db` is what runs).
  const masked = maskSecrets(args ?? {}, { secrets, byName: false });
  // Keys and values come from the model or an MCP server: nothing in them may hide or reorder text.
  const text = visibleText(JSON.stringify(masked, null, 1) ?? '{}');
  if (text.length <= SHORT_FIRST_AFTER) return text;
  const fields =
    masked !== null && typeof masked === 'object' && !Array.isArray(masked)
      ? Object.entries(masked as Record<string, unknown>)
      : undefined;
  const shortFirst = fields ? Object.fromEntries(fields.sort(([, a], [, b]) => rendered(a) - rendered(b))) : masked;
  return visibleText(JSON.stringify(shortFirst, null, 1) ?? '{}');
}

/**
 * What Show all sends the person who tapped it, privately: every character of the arguments, in a code
 * block whose fence no run of backticks inside can close (such a run is written as JSON escapes: the
 * same value), and how to decide once read.
 */
export function showAllText(gate: Gate, secrets: readonly string[] = []): string {
  const args = argsPreview(gate.call.args, secrets).replace(/`{3,}/g, (run) => '\\u0060'.repeat(run.length));
  return (
    `Arguments of ${visibleLine(gate.call.tool)} (gate ${gate.gateId}), in full:\n\`\`\`\n${args}\n\`\`\`\n` +
    `Decide with /approve ${gate.gateId} or /deny ${gate.gateId} <reason>.`
  );
}

const rendered = (value: unknown): number => JSON.stringify(value)?.length ?? 0;

/** Where a quorum stands: "1 of 2 approvals — maya ✅" (names as access.operators spells them). */
export function tally(gate: Gate): string {
  const approvals = gate.approvals ?? [];
  const names = approvals.map((a) => `${visibleLine(a.operator)} ✅`).join(' ');
  return `${approvals.length} of ${gate.policy?.approvals ?? 1} approvals${names ? ` — ${names}` : ''}`;
}

/**
 * One sentence saying where a gate stands, for a settled card's footer and for every losing tap:
 * "Approved once by maya on Slack at 12:03 UTC".
 */
export function outcomeLine(gate: Gate): string {
  const who = decidedBy(gate.decidedBy, gate.decidedPlatform, gate.decidedAt);
  switch (gate.state) {
    case 'pending':
      return 'Waiting for a decision';
    case 'claimed':
    case 'resuming':
    case 'settled':
      return `${VERB[gate.decision ?? 'deny']} ${who}${gate.denyReason ? `: ${gate.denyReason}` : ''}`;
    case 'timeout':
      return `Expired at ${clock(gate.expiresAt)}: nobody decided in time, so it was not run`;
    case 'superseded':
      return 'Superseded: the conversation moved on before anyone decided';
    case 'error':
      return (
        `${gate.decision ? `${VERB[gate.decision]} ${who}, but ` : ''}resuming failed: ` +
        `${gate.error ?? 'unknown error'}`
      );
  }
}

/**
 * THE approval card, in any state: what, with which arguments, who asked where, and either the buttons
 * with the time left (pending) or the outcome (every other state). Every platform renders this.
 */
export function gateCard(gate: Gate, options: { now?: Date; secrets?: readonly string[] } = {}): Card {
  const now = options.now ?? systemClock.now();
  // A tool's name and reason can come from an MCP server, a display name from a platform: shown as is.
  const tool = visibleLine(gate.call.tool);
  const fields = [
    { label: 'Tool', value: `${tool} (tier: ${gate.call.tier})` },
    { label: 'Why', value: visibleLine(gate.call.reason) },
    { label: 'Arguments', value: argsPreview(gate.call.args, options.secrets), whole: true },
    {
      label: 'Asked by',
      value: `${visibleLine(gate.requester.displayName ?? gate.requester.id)} in ${gate.chat ?? 'a background task'}`,
    },
    { label: 'Gate', value: gate.gateId },
  ];
  // Under a policy of several approvals the card says who has approved so far, and under which policy.
  if (gate.policy && gate.policy.approvals > 1)
    fields.push({ label: 'Approvals', value: `${tally(gate)} (policy ${visibleLine(gate.policy.name)})` });
  if (gate.policy && gate.escalatedAt)
    fields.push({
      label: 'Escalated',
      value: `to ${gate.policy.escalateTo.map((to) => visibleLine(to)).join(', ')} at ${clock(gate.escalatedAt)}`,
    });
  if (gate.state !== 'pending') return { title: `Approval: ${tool}`, fields, buttons: [], footer: outcomeLine(gate) };
  const minutes = Math.max(0, Math.ceil((gate.expiresAt.getTime() - now.getTime()) / 60_000));
  return {
    title: `Approve ${tool}?`,
    fields: [
      ...fields,
      { label: 'Time left', value: `${minutes} min (until ${clock(gate.expiresAt)})` },
      { label: 'By text', value: `/approve ${gate.gateId} · /deny ${gate.gateId} <reason>` },
    ],
    // Approve and Always only beside every argument: a platform that must cut them offers Show all instead.
    buttons: [
      { id: approvalActionId(gate.gateId, 'once'), label: 'Approve', style: 'primary', needsWhole: true },
      { id: approvalActionId(gate.gateId, 'always'), label: 'Always', style: 'secondary', needsWhole: true },
      // Under deny_reason: required a platform with forms asks why at the tap (a modal); others are asked after.
      {
        id: approvalActionId(gate.gateId, 'deny'),
        label: 'Deny',
        style: 'danger',
        ...(gate.policy?.denyReason === 'required' && { asksReason: true }),
      },
    ],
    showAll: { id: `${PREFIX}:${gate.gateId}:${SHOW_ALL}`, label: 'Show all', style: 'secondary' },
  };
}

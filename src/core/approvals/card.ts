import { clock, decidedBy } from '../decisions/index.ts';
import { systemClock } from '../clock.ts';
import { type Card, clipText, visibleLine, visibleText } from '../surface/index.ts';
import { maskSecrets } from '../secrets/index.ts';
import { DECISIONS, type Decision, type Gate } from './port.ts';

const PREFIX = 'apv';
const ACTION_ID = new RegExp(`^${PREFIX}:([A-Za-z0-9_-]{1,32}):(${DECISIONS.join('|')})$`);

/** The button id for a decision on a gate: `apv:<gateId>:<decision>` (well under Telegram's 64 bytes). */
export function approvalActionId(gateId: string, decision: Decision): string {
  return `${PREFIX}:${gateId}:${decision}`;
}

/** Reads an approval button id; undefined for any other id. */
export function parseApprovalActionId(id: string): { gateId: string; decision: Decision } | undefined {
  const match = ACTION_ID.exec(id);
  return match ? { gateId: match[1]!, decision: match[2] as Decision } : undefined;
}

/** Arguments shown on a card are cut here; the rest is counted, never silently dropped. */
export const MAX_ARG_CHARS = 600;

const VERB: Record<Decision, string> = { once: 'Approved once', always: 'Approved always (this chat)', deny: 'Denied' };

/**
 * Masked, pretty arguments, cut with an honest count of what is not shown. Too long to show whole, the
 * short fields come first: a long one (a file's content, a message) must not push the one that says
 * where it goes (a path, a URL, a command, a recipient) off the card. The cut never splits a character.
 */
export function argsPreview(args: unknown, secrets: readonly string[] = []): string {
  const masked = maskSecrets(args ?? {}, { secrets });
  // Keys and values come from the model or an MCP server: nothing in them may hide or reorder text.
  const text = visibleText(JSON.stringify(masked, null, 1) ?? '{}');
  if (text.length <= MAX_ARG_CHARS) return text;
  const fields =
    masked !== null && typeof masked === 'object' && !Array.isArray(masked)
      ? Object.entries(masked as Record<string, unknown>)
      : undefined;
  const shortFirst = fields ? Object.fromEntries(fields.sort(([, a], [, b]) => rendered(a) - rendered(b))) : masked;
  const shown = clipText(visibleText(JSON.stringify(shortFirst, null, 1) ?? '{}'), MAX_ARG_CHARS);
  return `${shown}… ${text.length - shown.length} more characters not shown`;
}

const rendered = (value: unknown): number => JSON.stringify(value)?.length ?? 0;

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
    { label: 'Arguments', value: argsPreview(gate.call.args, options.secrets) },
    {
      label: 'Asked by',
      value: `${visibleLine(gate.requester.displayName ?? gate.requester.id)} in ${gate.chat ?? 'a background task'}`,
    },
    { label: 'Gate', value: gate.gateId },
  ];
  if (gate.state !== 'pending') return { title: `Approval: ${tool}`, fields, buttons: [], footer: outcomeLine(gate) };
  const minutes = Math.max(0, Math.ceil((gate.expiresAt.getTime() - now.getTime()) / 60_000));
  return {
    title: `Approve ${tool}?`,
    fields: [
      ...fields,
      { label: 'Time left', value: `${minutes} min (until ${clock(gate.expiresAt)})` },
      { label: 'By text', value: `/approve ${gate.gateId} · /deny ${gate.gateId} <reason>` },
    ],
    buttons: [
      { id: approvalActionId(gate.gateId, 'once'), label: 'Approve', style: 'primary' },
      { id: approvalActionId(gate.gateId, 'always'), label: 'Always', style: 'secondary' },
      { id: approvalActionId(gate.gateId, 'deny'), label: 'Deny', style: 'danger' },
    ],
  };
}

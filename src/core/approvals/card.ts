import type { Card } from '../chat/types.ts';
import type { Decision, Gate } from './port.ts';

const PREFIX = 'apv';

/** The button id for a decision on a gate: `apv:<gateId>:<decision>` (well under Telegram's 64 bytes). */
export function approvalActionId(gateId: string, decision: Decision): string {
  return `${PREFIX}:${gateId}:${decision}`;
}

/** Reads an approval button id; undefined for any other id. */
export function parseApprovalActionId(id: string): { gateId: string; decision: Decision } | undefined {
  const match = /^apv:([A-Za-z0-9_-]{1,32}):(once|always|deny)$/.exec(id);
  return match ? { gateId: match[1]!, decision: match[2] as Decision } : undefined;
}

const MAX_ARG_CHARS = 600;

/** The card asking about one tool call: what, why, the arguments, and three buttons. */
export function approvalCard(gate: Gate): Card {
  const args = JSON.stringify(gate.call.args ?? {}) ?? '{}';
  return {
    title: `Approve ${gate.call.tool}?`,
    fields: [
      { label: 'tool', value: `${gate.call.tool} (tier: ${gate.call.tier})` },
      { label: 'why', value: gate.call.reason },
      { label: 'args', value: args.length > MAX_ARG_CHARS ? `${args.slice(0, MAX_ARG_CHARS)}…` : args },
      { label: 'asked by', value: gate.requester.displayName ?? gate.requester.id },
    ],
    buttons: [
      { id: approvalActionId(gate.gateId, 'once'), label: 'Once', style: 'primary' },
      { id: approvalActionId(gate.gateId, 'always'), label: 'Always', style: 'secondary' },
      { id: approvalActionId(gate.gateId, 'deny'), label: 'Deny', style: 'danger' },
    ],
  };
}

const VERB: Record<Decision, string> = { once: 'Approved once', always: 'Approved always (this chat)', deny: 'Denied' };

/** The same card in its final state: no buttons, a footer saying what happened. */
export function settledCard(gate: Gate, note?: string): Card {
  const footer =
    gate.state === 'superseded'
      ? `Superseded${note ? `: ${note}` : ''}`
      : `${VERB[gate.decision ?? 'deny']} by ${gate.decidedBy ?? 'someone'}${note ? ` (${note})` : ''}`;
  return { ...approvalCard(gate), buttons: [], footer };
}

// Shared pieces of the approval acceptance tests: four operators, a danger tool that counts its runs,
// taps as a platform would deliver them, and readers for the audit table and what the model saw.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { auditOf } from '../../src/core/approvals/gate-store.ts';
import type { Decision, Gate } from '../../src/core/approvals/port.ts';
import type { Actor, Card, ChatRef, InboundEvent } from '../../src/core/surface/index.ts';
import type { Db } from '../../src/core/db/index.ts';
import { defineTool } from '../../src/core/tools/define.ts';
import type { ChatRequestBody, FakeStep } from '../fakes/llm-server.ts';

/** Four operators; maya also has Slack and Discord ids. */
export const OPERATORS = [
  { name: 'maya', telegram: '42', slack: 'U0123ABC', discord: '987654321', console: 'maya' },
  { name: 'ana', telegram: '43' },
  { name: 'ben', telegram: '44' },
  { name: 'cy', telegram: '45' },
];

/** Each operator's Telegram identity, by name. */
export const TG: Record<'maya' | 'ana' | 'ben' | 'cy', Actor> = {
  maya: { platform: 'telegram', id: '42' },
  ana: { platform: 'telegram', id: '43' },
  ben: { platform: 'telegram', id: '44' },
  cy: { platform: 'telegram', id: '45' },
};

/** A kazma.yaml `access` section with the four operators (and optional plain users). */
export function access(users: string[] = []) {
  return { operators: OPERATORS, users };
}

/** Arguments of the `launch` test tool (every field is shown on the card). */
export interface LaunchArgs {
  target: string;
  token?: string;
  note?: string;
  payload?: string;
}

/**
 * `launch`: a danger tool with effects that records every run, so a test can tell "ran once" from
 * "ran twice" or "never ran". Share one instance between cores that stand for two processes.
 */
export function launchTool() {
  const runs: LaunchArgs[] = [];
  const tool = defineTool({
    name: 'launch',
    description: 'Launches the target (a test tool that counts its runs).',
    tier: 'danger',
    effects: true,
    input: z.object({
      target: z.string(),
      token: z.string().optional(),
      note: z.string().optional(),
      payload: z.string().optional(),
    }),
    run: async (args) => {
      runs.push(args);
      return `launched ${args.target}`;
    },
  });
  return { tool, runs };
}

/** The fake model asks to call `launch` with these arguments. */
export function launch(args: LaunchArgs): FakeStep {
  return { toolCalls: [{ name: 'launch', args: { ...args } }] };
}

/** The fake model asks to run one shell command. */
export function shell(command: string): FakeStep {
  return { toolCalls: [{ name: 'shell', args: { command } }] };
}

/** The id of the card's button for `decision`. */
export function button(card: Card, decision: Decision): string {
  const found = card.buttons.find((b) => b.id.endsWith(`:${decision}`));
  if (!found) throw new Error(`the card "${card.title}" has no ${decision} button`);
  return found.id;
}

/** A tap on a card button as an adapter hands it to the pipeline: a fresh platform event id each time. */
export function tapEvent(card: Card, decision: Decision, actor: Actor, chat: ChatRef): InboundEvent {
  return {
    kind: 'action',
    eventId: randomUUID(),
    platform: actor.platform,
    chat,
    actor,
    actionId: button(card, decision),
  };
}

/** A card field's value. */
export function field(card: Card, label: string): string {
  const found = card.fields.find((f) => f.label === label);
  if (found === undefined) throw new Error(`the card "${card.title}" has no "${label}" field`);
  return found.value;
}

/** The one gate in the list (fails loudly when there is not exactly one). */
export function only(gates: Gate[]): Gate {
  if (gates.length !== 1) throw new Error(`expected exactly one gate, found ${gates.length}`);
  return gates[0]!;
}

/** Every audit row of a gate, oldest first. */
export function audit(db: Db, gateId: string) {
  return auditOf(db, gateId);
}

/** How many audit rows of each outcome a gate has, e.g. `{ won: 1, lost: 199 }`. */
export async function auditCounts(db: Db, gateId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const row of await auditOf(db, gateId)) counts[row.outcome] = (counts[row.outcome] ?? 0) + 1;
  return counts;
}

/** The tool results the model was shown in a request. */
export function toolResults(body: ChatRequestBody | undefined): string[] {
  return (body?.messages ?? []).filter((m) => m.role === 'tool').map((m) => String(m.content));
}

/** Requests whose newest message is a tool result: one per resumed tool round. */
export function toolRounds(requests: ChatRequestBody[]): number {
  return requests.filter((r) => r.messages?.at(-1)?.role === 'tool').length;
}

/** `12:03 UTC`, as a card footer prints a time. */
export function hhmm(at: Date): string {
  return `${at.toISOString().slice(11, 16)} UTC`;
}
